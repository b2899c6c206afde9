"""Steps 5 and 6: judge what the latest run observed against the reference
(:func:`autograder.grading.scoring.outcomes` and :func:`~autograder.grading.scoring.score`), once per run.

A full run's verdicts count.  A short run's count where it ended cleanly and every exercise passed or was
left as released, or where its failures stand as they are (the learner's code reads only what it names,
:func:`autograder.shortrun.failures_need_full_run`); otherwise the notebook is run again in full, and the
reason is kept."""

from __future__ import annotations

from nbgrader.preprocessors import NbGraderPreprocessor

from autograder import shortrun
from autograder.grading.scoring import outcomes, score
from autograder.values import timing

CLEAN = ("passed", "not attempted")


class JudgeObservations(NbGraderPreprocessor):
    def preprocess(self, nb, resources):
        run = resources["grading"]
        res = run.executed
        if res is None or run.judged:
            return nb, resources
        with timing.phase("grader: judge observations"):
            run.exercises = score(run.data, outcomes(res.nb, run.data.exercises), run.refs, run.submitted.nb, res.error,
                                 res.nb)
        run.judged = True
        code_cells = sum(c.cell_type == "code" for c in run.merged.cells)
        if run.mode == "short":
            clean = all(e.status in CLEAN for e in run.exercises)
            # asked only of a short run with a failure: most pass, and need no reading of the learner's cells
            needs_full = "" if clean else shortrun.failures_need_full_run(run.merged, run.data.release)
            run.accepted = not res.error and not res.abandoned and not needs_full
            if run.accepted:
                run.result.run = f"short: {run.skipped} of {code_cells} code cells skipped"
            else:
                run.result.run = "full, after a short run ({})".format(
                    "the random-number generators did not reach a skipped stretch as in the reference"
                    if res.abandoned else "it stopped early" if res.error else
                    f"an exercise failed or errored in the short run, and {needs_full}")
        else:
            run.accepted = True
            if not run.result.run:
                run.result.run = "full"
        result = run.result
        result.error, result.seconds, result.exercises = res.error, res.seconds, run.exercises
        return nb, resources
