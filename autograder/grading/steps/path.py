"""Step 4: the plan, the runs a grade makes.  With hidden tests, the notebook's grade path
(:func:`autograder.gradepath.grade_path`): the cells off it are marked so that the executor does not run them;
without (the visible tests alone, as the learner checks their own work) every cell runs.  ``full``
(``--full``) plans the notebook top to bottom after the path's run, where there is a path: a diagnostic whose
verdicts are said beside the grade's and change nothing of it."""

from __future__ import annotations

from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Bool

from autograder import gradepath
from autograder.grading.steps import PlannedRun

TOP_TO_BOTTOM = "top to bottom"


class PlanGradePath(NbGraderPreprocessor):
    full = Bool(False, help="Also run the notebook top to bottom after its grade path, and say where its "
                            "verdicts differ (they never change the grade).").tag(config=True)

    def preprocess(self, nb, resources):
        run = resources["grading"]
        if not run.hidden:
            run.runs = [PlannedRun(TOP_TO_BOTTOM, nb)]
            run.result.run = TOP_TO_BOTTOM
            return nb, resources
        path = gradepath.grade_path(nb)
        run.runs = [PlannedRun("grade path", gradepath.mark(nb, path))]
        run.result.run = path.summary
        if self.full:
            run.runs.append(PlannedRun(TOP_TO_BOTTOM, nb))
        return nb, resources
