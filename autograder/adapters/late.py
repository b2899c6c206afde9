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
submission is judged by comes with its source (:func:`autograder.adapters.times.submission_time`);
:class:`Terms` holds everything that decides one student's lateness, so that a change of due date,
extension, policy or submission time re-records a grade without running anything, and a penalty
never rests on a file's modification time alone (it is noted instead).
"""

from __future__ import annotations

import datetime as dt
import functools
import math
from dataclasses import asdict, dataclass
from pathlib import Path

from nbgrader.plugins import LateSubmissionPlugin
from traitlets import Dict, Float

from autograder.adapters import times
from autograder.values import course
from autograder.values.errors import UserError


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


_POLICIES: dict[str, tuple[object, LatePolicy]] = {}


def policy(root: Path) -> LatePolicy:
    """The course's late policy, made once per reading of ``nbgrader_config.py`` (:func:`course.config`
    reads it again when it changes), not once per result."""
    cfg = course.config(root)
    key = str(Path(root).resolve())
    held = _POLICIES.get(key)
    if held is None or held[0] is not cfg:
        held = _POLICIES[key] = (cfg, LatePolicy(config=cfg))
    return held[1]


def due_date(rules: LatePolicy, assignment: str) -> dt.datetime | None:
    return parse_time(rules.due_dates.get(assignment))


def extension(rules: LatePolicy, assignment: str, student: str) -> dt.timedelta | None:
    """The student's extension of the assignment's due date, or None."""
    hours = (rules.extensions.get(assignment) or {}).get(student)
    if hours is None:
        return None
    try:
        hours = float(hours)
    except (TypeError, ValueError):
        raise UserError(f"nbgrader_config.py: LatePolicy.extensions[{assignment!r}][{student!r}] must be a number "
                        f"of hours, not {hours!r}") from None
    return dt.timedelta(hours=hours) if hours > 0 else None


@dataclass(frozen=True)
class Terms:
    """Everything that decides one student's lateness on one assignment: the course policy that applies
    to that student and the submission's time with its source.  Two equal values give equal penalties,
    so a stored result is re-recorded exactly when these change (no kernel runs for it)."""

    due: str | None
    extension_hours: float
    percent_per_day: float
    max_days: float
    submitted_at: str | None
    source: str

    @classmethod
    def of(cls, root: Path, assignment: str, student: str, submitted_at: str | None, source: str) -> "Terms":
        rules = policy(root)
        due = due_date(rules, assignment)
        ext = extension(rules, assignment, student)
        return cls(due.isoformat() if due else None, ext.total_seconds() / 3600 if ext else 0.0,
                   float(rules.percent_per_day), float(rules.max_days), submitted_at, source)

    def as_dict(self) -> dict:
        return asdict(self)

    def changes(self, before: dict | None) -> list[str]:
        """What of the policy differs from ``before`` (a stored :meth:`as_dict`), in words."""
        if not isinstance(before, dict):
            return []
        words = {"due": "due date", "extension_hours": "extension", "percent_per_day": "late policy",
                 "max_days": "late policy", "submitted_at": "submission time", "source": "submission time"}
        now = self.as_dict()
        return list(dict.fromkeys(words[k] for k in words if before.get(k) != now[k]))

    @property
    def unreadable(self) -> bool:
        """A due date applies and the submission's time does not read as a time: never taken as on time."""
        return bool(self.due and self.submitted_at and parse_time(self.submitted_at) is None)

    @functools.cached_property
    def seconds_late(self) -> float:
        """Seconds past the student's due date, extension included, as nbgrader's gradebook computes them
        (``SubmittedAssignment.total_seconds_late``, on an unsaved copy of what the gradebook is given):
        0 when on time or when there is no due date or no time; infinite when the time does not read
        (see :attr:`unreadable`).  Computed once per value (a result's lateness asks for it several times)."""
        if self.unreadable:
            return math.inf
        from nbgrader.api import Assignment, SubmittedAssignment

        due, when = parse_time(self.due), parse_time(self.submitted_at)
        orm = SubmittedAssignment(timestamp=when, extension=self.extension,
                                  assignment=Assignment(name="", duedate=due))
        return float(orm.total_seconds_late)

    @property
    def extension(self) -> dt.timedelta | None:
        return dt.timedelta(hours=self.extension_hours) if self.extension_hours > 0 else None

    @property
    def trusted(self) -> bool:
        """Whether a penalty may rest on the submission time (a file's time is no evidence of it)."""
        return self.source in times.TRUSTED

    def penalty(self, score: float) -> float:
        if not self.trusted:
            return 0.0
        seconds = self.seconds_late
        if math.isinf(seconds):  # later than any day the policy counts
            seconds = ((self.max_days if math.isfinite(self.max_days) else 36500) + 1) * 86400
        return _rule(self.percent_per_day, self.max_days).late_submission_penalty("", score, seconds) or 0.0

    def apply(self, result) -> None:
        """Write the lateness, the extension and the penalty into a :class:`~autograder.values.records.NotebookResult`."""
        result.submitted_at, result.submitted_at_source = self.submitted_at, self.source
        result.seconds_late = self.seconds_late if not self.unreadable else 0.0  # (JSON has no infinity)
        result.extension_hours = self.extension_hours
        result.late_penalty = self.penalty(result.score)
        result.notes = [n for n in result.notes if not n.startswith((UNTRUSTED_NOTE, UNREADABLE_NOTE))]
        if self.seconds_late > 0 and not self.trusted and not self.unreadable:
            result.notes.append(f"{UNTRUSTED_NOTE} ({self.source}, {self.seconds_late / 86400:.2f} days "
                                f"after the due date): no late penalty applied")
        if self.unreadable and self.trusted:
            result.notes.append(f"{UNREADABLE_NOTE} ({self.source}: {self.submitted_at[:40]!r}): taken as later "
                                "than the policy allows, never as on time; give the real time with --submitted-at")


@functools.lru_cache(maxsize=16)
def _rule(percent_per_day: float, max_days: float) -> LatePolicy:
    """nbgrader's plugin with a policy's numbers (one per policy in a process, not one per result)."""
    return LatePolicy(percent_per_day=percent_per_day, max_days=max_days)


UNTRUSTED_NOTE = "late by the file's time only"
UNREADABLE_NOTE = "the submission time does not read as a time"
