"""Step 4: the short run the reference's proof allows (:func:`autograder.shortrun.short_run`): none with
``--full``, without hidden tests, or where the proof skips nothing."""

from __future__ import annotations

from nbgrader.preprocessors import NbGraderPreprocessor

from autograder import shortrun


class PlanShortRun(NbGraderPreprocessor):
    def preprocess(self, nb, resources):
        run = resources["grading"]
        if not run.full and run.refs is not None:
            run.short, run.skipped = shortrun.short_run(nb, run.data.release, run.refs.short)
        return nb, resources
