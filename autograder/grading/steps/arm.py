"""Step 3: each hidden test gets its own seed, written into its block, and the student's variant bound again
in it (:func:`autograder.grading.submission.arm_hidden_tests`); nothing when only the visible tests run."""

from __future__ import annotations

from nbgrader.preprocessors import NbGraderPreprocessor

from autograder.grading.submission import arm_hidden_tests


class ArmHiddenTests(NbGraderPreprocessor):
    def preprocess(self, nb, resources):
        run = resources["grading"]
        if run.hidden:
            arm_hidden_tests(nb, run.seed, run.data.markers, variant=run.data.parameters)
        run.merged = nb
        return nb, resources
