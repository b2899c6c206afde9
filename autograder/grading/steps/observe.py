"""The reference's last step: what its hidden tests observed, per exercise, kept as the
:class:`~autograder.values.records.Reference` every submission of the notebook is judged against; or why there
is none (the solution's path did not run cleanly, or failed its own tests), in which case nothing may be graded.
Read with the judge's own :func:`~autograder.grading.steps.judge.outcomes`."""

from __future__ import annotations

from nbgrader.preprocessors import NbGraderPreprocessor

from autograder.grading.steps.judge import outcomes
from autograder.values.records import Reference


def observations(data, res, where: str) -> Reference:
    """Each exercise's observations from a clean run of the solution, or why there are none."""
    if res.error:
        return Reference(failure=f"{where} did not run to the end: {res.error}")
    for i, cell in enumerate(res.nb.cells):
        failed = next((o for o in cell.get("outputs", []) if o.get("output_type") == "error"), None)
        if failed is not None:
            return Reference(failure=f"{where}, cell {i}, raised {failed.get('ename')}: "
                                     f"{str(failed.get('evalue'))[:300]}")
    got = outcomes(res.nb, data.exercises)
    found = {}
    for ex in data.exercises:
        entry = got[ex.id]
        if entry.error or not entry.payload or entry.payload.get("error"):
            why = entry.error or (entry.payload or {}).get("error") or "no observations"
            return Reference(failure=f"{where} failed its own test {ex.id}: {why}")
        found[ex.id] = entry.payload
    return Reference(observations=found)


class KeepObservations(NbGraderPreprocessor):
    def preprocess(self, nb, resources):
        run = resources["grading"]
        run.reference = observations(run.data, run.graded.executed, f"reference solution {run.data.where}")
        return nb, resources
