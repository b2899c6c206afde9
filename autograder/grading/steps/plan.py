"""Step 4: the short run the reference's proof allows (:func:`autograder.shortrun.short_run`): none with
``--full``, without hidden tests, or where the proof skips nothing; and whether a failure in it would need
the full run (:func:`autograder.shortrun.failures_need_full_run`)."""

from __future__ import annotations

from nbgrader.preprocessors import NbGraderPreprocessor

from autograder import shortrun


class PlanShortRun(NbGraderPreprocessor):
    def preprocess(self, nb, resources):
        run = resources["grading"]
        if not run.full and run.refs is not None:
            run.short, run.skipped = shortrun.short_run(nb, run.data.release, run.refs.short)
            if run.short is not None:
                run.full_on_failure = shortrun.failures_need_full_run(nb, run.data.release)
        return nb, resources
