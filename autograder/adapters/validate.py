"""nbgrader's *Validate* (the button, and ``nbgrader validate``) on an exercise not started: one line, no traceback.

An exercise's test cell calls the answer, and the released stub raises ``NotImplementedError``: stock
Validate then lists the test cell as failed, with the stub's whole traceback, as if something were broken.
nbgrader's Validator takes no steps of a course's own, but the kernel client it runs (nbgrader's
``Execute``) calls hooks that the course's configuration sets (``nbgrader_config.py``, and a student
pack's): :data:`HOOKS`.  They replace such a traceback with one line naming the exercise not attempted
yet, in the grader's own words (:data:`autograder.values.messages.NOT_STARTED`).  Validate still lists the
cell, with its source, as not passed (that listing is nbgrader's own, and an exercise not attempted earns
nothing).  They act only while nbgrader validates (``NBGRADER_VALIDATING``): grading is the grader's
(:mod:`autograder.adapters.autograde`).
"""

from __future__ import annotations

import os

from autograder.values import course, messages


class _Run:
    """The notebook being validated: the execution count each code cell gets (a fresh kernel counts from 1,
    one per cell run), and the exercise of each answer cell among them."""

    last_index = -1
    count = 0
    answers: dict[int, str] = {}
    counts: dict[int, int] = {}


def _validating() -> bool:
    return os.environ.get("NBGRADER_VALIDATING") == "1"


def counting(cell=None, cell_index=None, **_) -> None:
    """``Execute.on_cell_execute`` (just before a code cell runs): note the count it will get."""
    if not _validating() or cell is None or not isinstance(cell_index, int):
        return
    if cell_index <= _Run.last_index:  # a new notebook, in a new kernel
        _Run.count, _Run.answers, _Run.counts = 0, {}, {}
    _Run.last_index, _Run.count = cell_index, _Run.count + 1
    _Run.counts[cell_index] = _Run.count
    if course.is_solution(cell):
        _Run.answers[_Run.count] = course.exercise_of(cell) or ""


def not_attempted(cell=None, cell_index=None, execute_reply=None, **_) -> None:
    """``Execute.on_cell_error``: a test cell stopped by a stub's ``NotImplementedError`` says so in one line,
    naming the exercise whose answer cell still raises it (another one's, where these tests use it)."""
    if not _validating() or cell is None or not course.is_tests(cell):
        return
    mine = course.exercise_of(cell) or ""
    counted = _Run.counts.get(cell_index) == cell.get("execution_count")  # else the counts say nothing here
    for out in cell.get("outputs") or []:
        error = f"{out.get('ename')}: {out.get('evalue')}"
        if out.get("output_type") != "error" or not messages.is_stub_error(error):
            continue
        frames = messages.traceback_frames(out.get("traceback")) if counted else []
        stub = next((_Run.answers[count] for count, _ in reversed(frames) if count in _Run.answers), mine)
        # short lines: Validate cuts each at 90 characters
        if stub == mine:
            lines = [f"Exercise {messages.exercise_number(mine)} is not attempted yet:",
                     f"{messages.NOT_STARTED}. Write your answer there, then validate again."]
        else:
            lines = [f"These tests use exercise {messages.exercise_number(stub)}, which is not attempted yet:",
                     f"{messages.NOT_STARTED}. Answer it first, then validate again."]
        out["traceback"] = [f"{messages.STUB_ERROR}: {lines[0]}", *lines[1:]]


# for nbgrader_config.py: c.Execute.<hook> = function
HOOKS = {"on_cell_execute": counting, "on_cell_error": not_attempted}
