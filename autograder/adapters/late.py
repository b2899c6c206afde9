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

The settings are judged in one place, :func:`problem` (a value that does not read is never taken as
no due date or no extension): :func:`policy` refuses them, before anything is graded, in one line
naming the setting, the value and the forms it takes, and :func:`check` adds one warning per name
of an assignment or a student that names nothing of the course.

One module of about 370 lines: the policy's reading, its judging of every setting and its application are
one rule, and a second module would split the place where a setting is judged from where it is used.
"""

from __future__ import annotations

import datetime as dt
import difflib
import functools
import math
import numbers
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path

from nbgrader.plugins import LateSubmissionPlugin
from traitlets import Dict, Float, TraitError, validate

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
    except (ValueError, TypeError, OverflowError):  # dateutil's words for text that is not a time
        return None


SETTINGS = ("due_dates", "extensions", "percent_per_day", "max_days")
DATE_FORMS = ("a date and time, in UTC unless it names its zone: '2026-12-07 23:59:00 UTC', "
              "'2026-12-07T23:59:00-05:00' or '2026-12-07 23:59:00 America/New_York'")
_SAYS = {"percent_per_day": "a number of percent, 0 or more (10 takes 10% of a notebook's score per day, or part "
                            "of a day, late)",
         "max_days": "a number of days, 0 or more (later than this takes the whole score; float('inf') never does)"}


def _due_as_read(text: str, default: dt.datetime) -> dt.datetime:
    """``text`` read as nbgrader's ``parse_utc`` reads it, with what the text leaves out taken from
    ``default`` (nbgrader takes it from today): a zone it does not know raises instead of reading as UTC."""
    import dateutil.parser
    import dateutil.tz

    parts = text.split(" ")
    with warnings.catch_warnings():
        warnings.simplefilter("error", dateutil.parser.UnknownTimezoneWarning)
        if len(parts) == 3:
            try:
                int(parts[2])  # nbgrader reads '+0200' here as 200 seconds east of UTC
            except ValueError:
                zone = dateutil.tz.gettz(parts[2])
            else:
                raise ValueError(f"a zone written {parts[2]!r}")
            if zone is None:
                raise ValueError(f"an unknown zone {parts[2]!r}")
            when = dateutil.parser.parse(" ".join(parts[:2] + ["TZ"]), tzinfos={"TZ": zone}, default=default)
        else:
            when = dateutil.parser.parse(text, default=default)
    return (when - when.utcoffset()).replace(tzinfo=None) if when.tzinfo is not None else when


def _reads_as_a_due_date(value) -> bool:
    """Whether a due date reads as one time, the same on any day it is read: a whole date (not 'friday' or
    'Dec 7', which nbgrader completes from today), in a zone that is known."""
    if isinstance(value, dt.datetime):
        return True
    if not isinstance(value, str) or parse_time(value) is None:
        return False
    text = value.strip()
    try:
        return {_due_as_read(text, d) for d in (dt.datetime(2001, 1, 1), dt.datetime(2002, 2, 2))} == \
            {parse_time(text)}
    except (ValueError, OverflowError):  # dateutil's words for text that is not a time (its ParserError too)
        return False


def _hours(value) -> float | None:
    """An extension's hours (a number, or a text of one), or None when it is not a number of hours, 0 or more."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, str)):
        return None
    try:
        hours = float(value)
    except ValueError:
        return None
    return hours if math.isfinite(hours) and hours >= 0 else None


def problem(name: str, value) -> str | None:
    """What is wrong with the value of the setting ``c.LatePolicy.<name>``, in words, or None: the one
    rule for the course's late policy, however it is read (:func:`policy`, nbgrader's own plugin)."""
    setting = f"c.LatePolicy.{name}"
    if name in _SAYS:
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or math.isnan(value) or value < 0 \
                or (name == "percent_per_day" and math.isinf(value)):
            return f"{setting} is {value!r}: give {_SAYS[name]}"
        return None
    if name not in ("due_dates", "extensions"):
        return (f"{setting} is not a setting of the course's late policy (its settings are "
                f"{', '.join(SETTINGS)}{_closest(name, SETTINGS)})")
    example = ('{"01_tensors": "2026-12-07 23:59:00 UTC"}' if name == "due_dates"
               else '{"01_tensors": {"alice": 48}}')
    if not isinstance(value, dict):
        return f"{setting} is {_short(value)}: give a dict of assignment names, such as {example}"
    for assignment, given in value.items():
        where = f"{setting}[{assignment!r}]"
        if not isinstance(assignment, str):
            return f"{setting} names the assignment {assignment!r}: assignment names are text, such as {example}"
        if name == "due_dates":
            if given is not None and not _reads_as_a_due_date(given):
                return f"{where} is {_short(given)}, which is not a due date: give {DATE_FORMS}"
            continue
        if not isinstance(given, dict):
            return (f"{where} is {_short(given)}: give a dict of student ids and the hours added to each one's "
                    f"due date, such as {example}")
        for student, hours in given.items():
            if not isinstance(student, str):
                return f"{where} names the student {student!r}: student ids are text, such as {example}"
            if _hours(hours) is None:
                return (f"{where}[{student!r}] is {_short(hours)}: give the hours added to {student}'s due date, "
                        "a number, 0 or more (48 for two days)")
    return None


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _closest(name: str, known) -> str:
    near = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return f"; the closest is {near[0]}" if near else ""


class LatePolicy(LateSubmissionPlugin):
    due_dates = Dict(help="assignment name -> due date (UTC)").tag(config=True)
    percent_per_day = Float(0.0, help="percent of the score taken per day (or part of a day) late").tag(config=True)
    max_days = Float(math.inf, help="days late after which the whole score is taken").tag(config=True)
    extensions = Dict(help="assignment name -> {student id: hours added to that student's due date}").tag(config=True)

    @validate(*SETTINGS)
    def _judged(self, proposal):
        """The same rule wherever the policy is made (nbgrader's own ``AssignLatePenalties`` makes it too)."""
        said = problem(proposal["trait"].name, proposal["value"])
        if said:
            raise TraitError(said)
        return proposal["value"]

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
        held = _POLICIES[key] = (cfg, _made(cfg))
    return held[1]


def _made(cfg) -> LatePolicy:
    """The policy of a configuration, or a :class:`UserError` naming the first setting that does not read
    (a setting that is not one, then each one's value), before anything is graded."""
    from traitlets.config import LazyConfigValue

    given = dict(cfg.LatePolicy) if "LatePolicy" in cfg else {}
    for name in sorted(given, key=lambda n: (n in SETTINGS, n)):
        value = given[name]
        if isinstance(value, LazyConfigValue):  # c.LatePolicy.due_dates["01_tensors"] = ... with no dict before it
            value = value.get_value({} if name in ("due_dates", "extensions") else None)
        said = problem(name, value)
        if said:
            raise UserError(f"nbgrader_config.py: {said}")
    try:
        return LatePolicy(config=cfg)
    except TraitError as exc:  # a rule of traitlets' own that problem() did not foresee: said the same way
        raise UserError(f"nbgrader_config.py: {exc}") from None


def due_date(rules: LatePolicy, assignment: str) -> dt.datetime | None:
    given = rules.due_dates.get(assignment)
    if isinstance(given, dt.datetime):
        from nbgrader.utils import parse_utc

        return parse_utc(given)
    return parse_time(given)


def extension(rules: LatePolicy, assignment: str, student: str) -> dt.timedelta | None:
    """The student's extension of the assignment's due date, or None (none without a due date to extend)."""
    hours = _hours((rules.extensions.get(assignment) or {}).get(student))
    if not hours or due_date(rules, assignment) is None:
        return None
    return dt.timedelta(hours=hours)


def check(root: Path, submitted: Path, db_url: str) -> list[str]:
    """The course's late policy judged before grading: a :class:`UserError` for a setting that does not read
    (:func:`policy`), and one warning line per name in it that names nothing: an assignment that is not one
    of the course's, a student given an extension who has no submission of that assignment in ``submitted``
    and is not in the gradebook (a roster may add them later: nothing stops), and an extension of an
    assignment that has no due date."""
    rules = policy(root)
    if not rules.due_dates and not rules.extensions:
        return []
    known = [a.name for a in course.assignments(root)]
    lines = []
    for setting in ("due_dates", "extensions"):
        for name in getattr(rules, setting):
            if name not in known:
                near = _closest(name, known).removeprefix("; ")
                lines.append(f"warning: nbgrader_config.py: c.LatePolicy.{setting} names {name!r}, which is not an "
                             f"assignment of this course ({near or 'the assignments are ' + ', '.join(known)}): it "
                             "applies to nothing")
    people = None
    for assignment, given in rules.extensions.items():
        if assignment not in known or not given:
            continue
        if due_date(rules, assignment) is None:
            lines.append(f"warning: nbgrader_config.py: c.LatePolicy.extensions[{assignment!r}] extends the due date "
                         f"of {', '.join(given)}, but {assignment} has no due date in c.LatePolicy.due_dates: no "
                         "extension applies")
        if people is None:
            people = course.gradebook_students(db_url)
        handed_in = {p.parent.name for p in Path(submitted).glob(f"*/{assignment}") if p.is_dir()}
        for student in given:
            if student not in handed_in and student not in people:
                near = _closest(student, sorted(handed_in | people)).removeprefix("; ")
                lines.append(f"warning: nbgrader_config.py: c.LatePolicy.extensions[{assignment!r}] names "
                             f"{student!r}, who has no submission of {assignment} and is not in the gradebook"
                             f"{f' ({near})' if near else ''}: it applies once they hand it in or a roster adds them")
    return lines


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
        if not self.due:  # nothing to be late for (and nbgrader cannot extend a due date there is not)
            return 0.0
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
