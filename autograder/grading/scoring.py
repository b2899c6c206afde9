"""From an executed notebook to each exercise's verdict, in the trusted grader process.

An exercise passes when its test cell ran, its visible asserts passed and the hidden tests'
observations match the reference's on the same seed (:mod:`autograder.values.judge`).  What a
learner is told comes from trusted text only (:mod:`autograder.values.messages`); the raw errors
are kept for the instructor.
"""

from __future__ import annotations

import json

import nbformat

from autograder.grading.submission import attempted
from autograder.values import course, judge, messages, outputs, wire
from autograder.values.records import CellOutcome, ExerciseResult, Reference


def cell_outcome(cell, exercise: str) -> CellOutcome:
    """What one executed test cell produced: whether it ran, its first error, its observations payload."""
    entry = CellOutcome()
    if cell is None or cell.get("outputs") is None:
        return entry
    entry.ran = cell.get("execution_count") is not None or bool(cell.outputs)
    for out in cell.outputs:
        if not isinstance(out, dict):
            continue
        if out.get("output_type") == "error" and entry.error is None:
            entry.error = outputs.safe_text(f"{out.get('ename', 'Error')}: {str(out.get('evalue', ''))[:400]}",
                                            600).rstrip(": ")
            entry.error_name = str(out.get("ename", "Error"))[:100]
            entry.error_line = messages.traceback_line(out.get("traceback"))
        data = out.get("data") if isinstance(out.get("data"), dict) else {}
        if wire.MIME in data and entry.payload is None:
            payload = data[wire.MIME]
            if isinstance(payload, str):
                try:
                    payload = json.loads(payload)
                except ValueError:
                    payload = None
            if isinstance(payload, dict) and payload.get("exercise") == exercise:
                entry.payload = payload
    return entry


def outcomes(nb: nbformat.NotebookNode, exercises: list[course.Exercise]) -> dict[str, CellOutcome]:
    """The outcome of each exercise's test cell in an executed notebook."""
    by_gid = {course.grade_id(c): c for c in nb.cells if course.grade_id(c)}
    found = {}
    for ex in exercises:
        entry = cell_outcome(by_gid.get(f"{ex.id}_tests"), ex.id)
        entry.answer_error = cell_outcome(by_gid.get(f"{ex.id}_solution"), ex.id).error
        found[ex.id] = entry
    return found


def verdict(entry: CellOutcome, reference: dict | None, visible_source: str | None = None,
            known: dict | None = None) -> tuple[bool, str, str]:
    ok, message, hint, _ = judged(entry, reference, visible_source, known)
    return ok, message, hint


def judged(entry: CellOutcome, reference: dict | None, visible_source: str | None = None,
           known: dict | None = None) -> tuple[bool, str, str, list[judge.Check]]:
    """Pass/fail of one executed test cell (visible asserts passed and observations match the
    reference), the message, and the concepts that failed.

    Given the test cell's ``visible_source``, a failed visible test is told from trusted text
    only (:mod:`autograder.values.messages`), with the variant's values ``known``; without it, the raw error is
    returned (for authors' tools)."""
    if not entry.ran:
        return False, "the tests did not run", "", []
    if entry.error:
        if visible_source is None:
            return False, entry.error, "", []
        return False, messages.visible_failure(entry.error_name, entry.error_line, visible_source, known), "", []
    v = judge.judge(reference, entry.payload)
    if v.passed:
        return True, "", "", []
    return False, v.message(), "; ".join(sorted({c.hint for c in v.failures() if c.hint})), v.failures()


def score(data, got: dict[str, CellOutcome], refs: Reference | None, student: nbformat.NotebookNode | None,
          run_error: str | None = None) -> list[ExerciseResult]:
    """Each exercise's result (``data`` is the notebook's :class:`autograder.grading.coursedata.NotebookData`;
    ``refs`` None: visible tests only)."""
    visible = data.visible_tests()
    known = data.parameters  # the student's variant, as the grader drew and rendered it
    results = []
    for ex in data.exercises:
        entry = got.get(ex.id) or CellOutcome()
        r = ExerciseResult(ex.id, ex.title, ex.points, 0.0, "failed")
        if not attempted(student, data.release, ex):
            r.status, r.message = "not attempted", "the answer cell still holds the stub"
        elif not entry.ran:
            r.message = "the tests did not run" + (f": {run_error}" if run_error else "")
        elif refs is None:
            if entry.error:
                r.message = messages.visible_failure(entry.error_name, entry.error_line, visible.get(ex.id), known)
            else:
                r.status, r.score = "passed", ex.points  # visible tests only
        else:
            ok, r.message, r.hint, failures = judged(entry, refs.of(ex.id), visible.get(ex.id, ""), known)
            if ok:
                r.status, r.score = "passed", ex.points
            elif entry.error:
                r.failed_checks = [{"check": "visible tests", "concept": r.message.splitlines()[0][:200]}]
            else:
                r.failed_checks = [{"check": c.name, "concept": c.hint} for c in failures]
        if r.status == "failed":
            hidden_error = entry.payload.get("error") if isinstance(entry.payload, dict) else None
            raw = [entry.answer_error, entry.error, hidden_error]
            r.detail = outputs.safe_text("\n".join(str(x) for x in raw if x), 2000)
            if entry.answer_error:
                # the answer cell's own error is the cause: what the tests then raised (a NameError for the
                # function it never defined) is its consequence, and is not what the learner must fix
                name = messages.exception_name(entry.answer_error)
                r.failed_checks = [{"check": "answer cell", "concept": f"the answer cell raised {name}"}]
                rest = "" if entry.error_name == "NameError" else r.message
                r.message = f"your answer cell raised {name}: fix it first, the tests use what it defines\n{rest}".strip()
        results.append(r)
    return results
