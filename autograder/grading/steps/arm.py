"""Step 3: each hidden test gets its own seed, written into its block, and the student's variant bound again
in it (:func:`arm_hidden_tests`); nothing when only the visible tests run."""

from __future__ import annotations

import nbformat
from nbgrader.preprocessors import NbGraderPreprocessor

from autograder import probe
from autograder.values import course, variants


def arm_hidden_tests(nb: nbformat.NotebookNode, seed: int, marks: course.Markers, *, variant: dict
                     ) -> nbformat.NotebookNode:
    """Write each hidden test's own seed into its block (:func:`autograder.probe.arm`), and bind again the
    per-student variant's parameters the block names to ``variant``, the values the grader drew.

    The kernel's environment holds no seed: code that runs before a hidden test cannot work out
    its inputs, and what a later cell can read of one test's seed says nothing of another's.  A hidden
    test that builds its inputs from a parameter (a loss lower than the best by ``MIN_DELTA / 2``) reads
    the grader's value, not one the learner's code bound in its place: an answer written for another
    variant cannot bring the tests round to it."""
    for cell in nb.cells:
        ex = course.exercise_of(cell)
        if ex and course.is_tests(cell) and marks.hides_tests(cell.source):
            head, tail = cell.source.split(marks.begin_hidden, 1)
            first, _, rest = tail.partition("\n")
            line = probe.arm_line(ex, probe.derive_seed(seed, ex)) + variants.binding_lines(variant, rest)
            cell.source = f"{head}{marks.begin_hidden}{first}\n{line}{rest}"
    return nb


class ArmHiddenTests(NbGraderPreprocessor):
    def preprocess(self, nb, resources):
        run = resources["grading"]
        if run.hidden:
            arm_hidden_tests(nb, run.seed, run.data.markers, variant=run.data.parameters)
        return nb, resources
