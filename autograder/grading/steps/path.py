"""Step 4: the grade path (:func:`autograder.gradepath.grade_path`): with hidden tests, the cells off it are
marked so that the executor does not run them; without (the visible tests alone, as the learner checks
their own work) every cell runs."""

from __future__ import annotations

from nbgrader.preprocessors import NbGraderPreprocessor

from autograder import gradepath


class PlanGradePath(NbGraderPreprocessor):
    def preprocess(self, nb, resources):
        run = resources["grading"]
        if run.hidden:
            run.path = gradepath.grade_path(nb)
            run.todo = gradepath.mark(nb, run.path)
        else:
            run.todo = nb
        return nb, resources
