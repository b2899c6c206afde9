"""Due dates and the late-work policy, as nbgrader's late-submission plugin.

``nbgrader_config.py`` states each assignment's due date (UTC) and the policy:

    c.LatePolicy.due_dates = {"01_tensors": "2026-12-07 23:59:00 UTC"}
    c.LatePolicy.percent_per_day = 10   # of the notebook's score, per day or part of a day late
    c.LatePolicy.max_days = 5           # later than this, the whole score
    c.LatePolicy.extensions = {"01_tensors": {"alice": 48}}   # hours added to alice's due date

:class:`LatePolicy` is an nbgrader ``LateSubmissionPlugin``: nbgrader's own autograde applies
it too (``AssignLatePenalties.plugin_class``).  The grader records each notebook's lateness and
penalty in the gradebook (``late_submission_penalty``), the result and the export.  A
student's extension is written to the gradebook as nbgrader's own per-submission
``extension``, so nbgrader's lateness and the formgrader agree with the grader's.  The time a
submission is judged by comes with its source (:func:`autograder.submission.submission_time`):
a collector's record where there is one.
"""

from __future__ import annotations

import datetime as dt
import math
from pathlib import Path

from nbgrader.plugins import LateSubmissionPlugin
from traitlets import Dict, Float

from . import course


def parse_time(text: str | None) -> dt.datetime | None:
    """A UTC time from nbgrader's timestamp formats ('2026-11-20 12:00:00.000000 UTC', ISO), or None."""
    if not text:
        return None
    from nbgrader.utils import parse_utc

    try:
        return parse_utc(text.strip())
    except (ValueError, TypeError):
        return None


class LatePolicy(LateSubmissionPlugin):
    due_dates = Dict(help="assignment name -> due date (UTC)").tag(config=True)
    percent_per_day = Float(0.0, help="percent of the score taken per day (or part of a day) late").tag(config=True)
    max_days = Float(math.inf, help="days late after which the whole score is taken").tag(config=True)
    extensions = Dict(help="assignment name -> {student id: hours added to that student's due date}").tag(config=True)

    def late_submission_penalty(self, student_id: str, score: float, total_seconds_late: float) -> float | None:
        if total_seconds_late <= 0 or score <= 0:
            return None
        days = math.ceil(total_seconds_late / 86400)
        if days > self.max_days:
            return float(score)
        return round(min(score, score * self.percent_per_day * days / 100.0), 6)


def policy(root: Path) -> LatePolicy:
    return LatePolicy(config=course.config(root))


def due_date(root: Path, assignment: str) -> dt.datetime | None:
    return parse_time(policy(root).due_dates.get(assignment))


def extension(root: Path, assignment: str, student: str) -> dt.timedelta | None:
    """The student's extension of the assignment's due date, or None."""
    hours = (policy(root).extensions.get(assignment) or {}).get(student)
    if hours is None:
        return None
    try:
        hours = float(hours)
    except (TypeError, ValueError):
        raise ValueError(f"LatePolicy.extensions[{assignment!r}][{student!r}] must be a number of hours, "
                         f"not {hours!r}") from None
    return dt.timedelta(hours=hours) if hours > 0 else None


def lateness(root: Path, assignment: str, student: str, submitted_at: str | None) -> float:
    """Seconds past the student's due date, extension included (0 when on time, or when either time is unknown)."""
    due, when = due_date(root, assignment), parse_time(submitted_at)
    if due is None or when is None:
        return 0.0
    return max(0.0, (when - due - (extension(root, assignment, student) or dt.timedelta())).total_seconds())


def penalty(root: Path, student: str, score: float, seconds_late: float) -> float:
    return policy(root).late_submission_penalty(student, score, seconds_late) or 0.0
