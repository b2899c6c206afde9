"""Steps 6 and 8: judge what a run observed against the reference
(:func:`autograder.grading.scoring.outcomes` and :func:`~autograder.grading.scoring.score`), once per run.

The grade is the path's run (step 5).  The top-to-bottom run of ``--full`` (step 7) is judged the same way
and changes nothing of it: where an exercise's verdict differs, the result's ``run`` says so."""

from __future__ import annotations

from nbgrader.preprocessors import NbGraderPreprocessor

from autograder.grading.scoring import outcomes, score
from autograder.values import timing


class JudgeObservations(NbGraderPreprocessor):
    def preprocess(self, nb, resources):
        run = resources["grading"]
        res = run.executed
        if res is None:
            return nb, resources
        if not run.judged:
            run.judged = True
            with timing.phase("grader: judge observations"):
                run.exercises = score(run.data, outcomes(res.nb, run.data.exercises), run.refs, run.submitted.nb,
                                      res.error, res.nb)
            result = run.result
            result.error, result.seconds, result.exercises = res.error, res.seconds, run.exercises
            result.run = run.path.summary if run.path is not None else "top to bottom"
        elif run.top_to_bottom is not None and not run.compared:
            full = run.top_to_bottom
            other = score(run.data, outcomes(full.nb, run.data.exercises), run.refs, run.submitted.nb, full.error,
                          full.nb)
            run.result.run += "; " + top_to_bottom_note(run.exercises, other, full.error)
            run.compared = True
        return nb, resources


def top_to_bottom_note(path: list, full: list, error: str | None) -> str:
    """What ``--full``'s top-to-bottom run says beside the path's verdicts, in one line (trusted words only:
    exercise ids, statuses and scores)."""
    theirs = {e.id: e for e in full}
    differ = [f"{e.id} {theirs[e.id].status} ({theirs[e.id].score:g} points) top to bottom, {e.status} "
              f"({e.score:g}) on the path" for e in path
              if e.id in theirs and (theirs[e.id].status, theirs[e.id].score) != (e.status, e.score)]
    said = "top to bottom: " + ("; ".join(differ) if differ else "the same verdicts")
    return said + (f" (it stopped early: {error})" if error else "")
