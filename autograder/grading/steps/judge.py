"""Step 6: judge what each planned run observed against the reference, from an executed notebook to each
exercise's verdict, in the trusted grader process.

An exercise passes when its test cell ran, its visible asserts passed and the hidden tests'
observations match the reference's on the same seed (:mod:`autograder.values.comparison`).  What a
learner is told comes from trusted text only (:mod:`autograder.values.messages`); the raw errors
are kept for the instructor.

The grade is the first planned run's, the path's.  The top-to-bottom run of ``--full`` is judged the same way
and changes nothing of it: where an exercise's verdict differs, the result's ``run`` says so.  The
reference's own run is read by the same :func:`outcomes` (:mod:`.observe`)."""

from __future__ import annotations

import json

import nbformat
from nbgrader.preprocessors import NbGraderPreprocessor

from autograder.values import comparison, course, messages, outputs, timing, wire
from autograder.values.records import CellOutcome, ExerciseResult, Reference, Status


def attempted(student: nbformat.NotebookNode | None, release: nbformat.NotebookNode, ex: course.Exercise) -> bool:
    """Whether the learner changed any of the exercise's answer cells from the released stub."""
    if student is None:
        return False
    stubs = {course.grade_id(c): c.source.strip() for c in release.cells
             if course.exercise_of(c) == ex.id and course.is_solution(c)}
    for cell in student.cells:
        gid = course.grade_id(cell)
        if gid in stubs and cell.get("source", "").strip() != stubs[gid]:
            return True
    return False


def cell_outcome(cell, exercise: str) -> CellOutcome:
    """What one executed test cell produced: whether it ran, its first error, its observations payload."""
    entry = CellOutcome()
    if cell is None or cell.get("outputs") is None:
        return entry
    entry.ran = cell.get("execution_count") is not None or bool(cell.outputs)
    entry.count = cell.get("execution_count") if isinstance(cell.get("execution_count"), int) else None
    for out in cell.outputs:
        if not isinstance(out, dict):
            continue
        if out.get("output_type") == "error" and entry.error is None:
            entry.error = outputs.safe_text(f"{out.get('ename', 'Error')}: {str(out.get('evalue', ''))[:400]}",
                                            600).rstrip(": ")
            entry.error_name = str(out.get("ename", "Error"))[:100]
            entry.error_frames = messages.traceback_frames(out.get("traceback"))
            own = [line for count, line in entry.error_frames if count == entry.count and count is not None]
            entry.error_line = own[-1] if own else (entry.error_frames[0][1] if entry.error_frames else None)
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


def authors(nb: nbformat.NotebookNode, release: nbformat.NotebookNode | None) -> dict[int, str | None]:
    """Who wrote each executed code cell, by the execution count its frames name: an exercise's id for its
    answer cell, "" for a cell of the learner's own, None for the instructor's (a test cell, or a cell of the
    release; without ``release``, every cell that is not an answer)."""
    released = {c.source for c in release.cells if c.cell_type == "code"} if release is not None else None
    found: dict[int, str | None] = {}
    for cell in nb.cells:
        count = cell.get("execution_count")
        if cell.get("cell_type") != "code" or not isinstance(count, int):
            continue
        if course.is_solution(cell):
            found[count] = course.exercise_of(cell) or ""
        elif released is None or course.grade_id(cell) or cell.get("source", "") in released:
            found[count] = None
        else:
            found[count] = ""
    return found


def origin(frames, written: dict[int, str | None]) -> tuple[str | None, int | None]:
    """The innermost of ``frames`` in a cell the learner wrote: (its exercise, "" for a cell of their own;
    the line), or (None, None) where the learner's code is not on the way (the tests raised)."""
    for frame in reversed(frames if isinstance(frames, list) else []):
        if not (isinstance(frame, (list, tuple)) and len(frame) == 2):
            continue
        count, line = frame
        if type(count) is int and type(line) is int and 0 < line < 10**7 and written.get(count) is not None:
            return written[count], line
    return None, None


def outcomes(nb: nbformat.NotebookNode, exercises: list[course.Exercise]) -> dict[str, CellOutcome]:
    """The outcome of each exercise's test cell in an executed notebook."""
    by_gid = {course.grade_id(c): c for c in nb.cells if course.grade_id(c)}
    found = {}
    for ex in exercises:
        entry = cell_outcome(by_gid.get(f"{ex.id}_tests"), ex.id)
        answer = cell_outcome(by_gid.get(f"{ex.id}_solution"), ex.id)
        entry.answer_error, entry.answer_error_line = answer.error, answer.error_line
        found[ex.id] = entry
    return found


def verdict(entry: CellOutcome, reference: dict | None, visible_source: str | None = None,
            known: dict | None = None) -> tuple[bool, str, str]:
    ok, message, hint, _ = judged(entry, reference, visible_source, known)
    return ok, message, hint


def judged(entry: CellOutcome, reference: dict | None, visible_source: str | None = None,
           known: dict | None = None, exercise: str = "",
           written: dict[int, str | None] | None = None) -> tuple[bool, str, str, list[messages.Failure]]:
    """Pass/fail of one executed test cell (visible asserts passed and observations match the
    reference), the message, the concepts to revisit, and each failure.

    Given the test cell's ``visible_source``, a failed visible test is told from trusted text
    only (:mod:`autograder.values.messages`), with the variant's values ``known`` and the place of an error
    raised in the learner's code (``written``: :func:`authors`); without it, the raw error is returned (for
    authors' tools)."""
    if not entry.ran:
        return False, "the tests did not run", "", [messages.Failure("tests", "", "the tests did not run")]
    if entry.error:
        if visible_source is None:
            return False, entry.error, "", []
        failure = visible(entry, visible_source, known, exercise, written or {})
        return False, failure.visible_text(), failure.concept, [failure]
    payload = entry.payload if isinstance(entry.payload, dict) else None
    at = None
    if payload is not None and payload.get("error"):
        where, line = origin(payload.get("error_at"), written or {})
        at = messages.raised(payload.get("error"), where, line, exercise) if where is not None else None
    v = comparison.judge(reference, entry.payload, at)
    if v.passed:
        return True, "", "", []
    failures = [messages.Failure(c.name, c.hint, *((v.error, v.where) if c.name == v.stopped else ("", "")))
                for c in v.failures()]
    if not failures and v.error:
        failures = [messages.Failure("hidden tests", "", v.error, v.where)]
    return False, v.message(), "; ".join(sorted({c.hint for c in v.failures() if c.hint})), failures


def visible(entry: CellOutcome, source: str, known: dict | None, exercise: str,
            written: dict[int, str | None]) -> messages.Failure:
    """The failure of a test cell that raised: where the learner's code raised it (their own line), else the
    visible assert that failed (its message), else what the tests raised (the test cell's line)."""
    where, line = origin(entry.error_frames, written)
    if where is not None:
        return messages.Failure("visible tests", "", *messages.raised(entry.error, where, line, exercise))
    found = messages.visible_assert(entry.error_name, entry.error_line, source, known)
    return found or messages.Failure("visible tests", "", *messages.raised(entry.error_name, None, entry.error_line,
                                                                             exercise))


def not_started(entry: CellOutcome, written: dict[int, str | None], exercise: str) -> int | None:
    """The answer cell's line where the exercise's own stub still raises its NotImplementedError, in the
    visible tests or the hidden ones (0 where the line is not known); None where it does not."""
    payload = entry.payload if isinstance(entry.payload, dict) else {}
    for error, frames in ((entry.error, entry.error_frames), (payload.get("error"), payload.get("error_at"))):
        where, line = origin(frames, written)
        if where == exercise and messages.is_stub_error(error or ""):
            return line or 0
    return None


def score(data, got: dict[str, CellOutcome], refs: Reference | None, student: nbformat.NotebookNode | None,
          run_error: str | None = None, nb: nbformat.NotebookNode | None = None) -> list[ExerciseResult]:
    """Each exercise's result (``data`` is the notebook's :class:`autograder.grading.coursedata.NotebookData`;
    ``refs`` None: visible tests only; ``nb``: the executed notebook, whose cells say who wrote each frame of
    a traceback)."""
    visible_sources = data.visible_tests()
    known = data.parameters  # the student's variant, as the grader drew and rendered it
    written = authors(nb, data.release) if nb is not None else {}
    results = []
    for ex in data.exercises:
        entry = got.get(ex.id) or CellOutcome()
        r = ExerciseResult(ex.id, ex.title, ex.points, 0.0, Status.FAILED)
        failures: list[messages.Failure] = []
        stub_line = not_started(entry, written, ex.id)
        if not attempted(student, data.release, ex):
            r.status, r.message = Status.NOT_ATTEMPTED, messages.NOT_STARTED
        elif stub_line is not None:
            stub = messages.Failure("not attempted", "", messages.STILL_STUB,
                                    f"answer cell, line {stub_line}" if stub_line else "")
            r.status, r.message, r.failed_checks = Status.NOT_ATTEMPTED, stub.text(), [stub.to_dict()]
        elif not entry.ran:
            r.message = "the tests did not run" + (f": {run_error}" if run_error else "")
            failures = [messages.Failure("tests", "", "the tests did not run")]
        elif refs is None and not entry.error:
            r.status, r.score = Status.PASSED, ex.points  # visible tests only
        else:
            ok, r.message, r.hint, failures = judged(entry, refs.of(ex.id) if refs is not None else None,
                                                     visible_sources.get(ex.id, ""), known, ex.id, written)
            if ok:
                r.status, r.score = Status.PASSED, ex.points
        if r.status == Status.FAILED:
            hidden_error = entry.payload.get("error") if isinstance(entry.payload, dict) else None
            raw = [entry.answer_error, entry.error, hidden_error]
            r.detail = outputs.safe_text("\n".join(str(x) for x in raw if x), 2000)
            if entry.answer_error:
                # the answer cell's own error is the cause: what the tests then raised (a NameError for the
                # function it never defined) is its consequence, and is not what the learner must fix
                line = entry.answer_error_line
                cause = messages.Failure("answer cell", "", messages.answer_cause(entry.answer_error),
                                         f"answer cell, line {line}" if line else "")
                rest = "" if entry.error_name == "NameError" else r.message
                failures = [cause] + ([] if entry.error_name == "NameError" else
                                      [f for f in failures if f.check not in ("visible tests", "answer cell")])
                r.message = f"{cause.text()}: fix it first, the tests use what it defines\n{rest}".strip()
            r.hint = "; ".join(dict.fromkeys(f.concept for f in failures if f.concept))
            r.failed_checks = [f.to_dict() for f in failures]
        results.append(r)
    return results


class JudgeObservations(NbGraderPreprocessor):
    def preprocess(self, nb, resources):
        run = resources["grading"]
        graded, *beside = run.runs
        with timing.phase("grader: judge observations"):
            for planned in run.runs:
                done = planned.executed
                planned.exercises = score(run.data, outcomes(done.nb, run.data.exercises), run.refs,
                                          run.submitted.nb, done.error, done.nb)
        result = run.result
        result.error, result.seconds, result.exercises = graded.executed.error, graded.executed.seconds, \
            graded.exercises
        for other in beside:  # --full's run: said beside the grade, never changing it
            result.run += "; " + top_to_bottom_note(graded.exercises, other.exercises, other.executed.error)
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
