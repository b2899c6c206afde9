"""The records grading passes around: typed values with one way in and out of JSON.

A notebook's result crosses to a Slurm task and into the result store as plain JSON
(``to_dict``/``from_dict``); everything else in the package holds these dataclasses.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from enum import StrEnum


def final_score(score: float, late_penalty: float) -> float:
    """What a notebook or an assignment counts for: its score less its late penalty, never below zero."""
    return max(0.0, score - late_penalty)

class Status(StrEnum):
    """An exercise's verdict.  A string too, so that JSON and the report's keys hold its plain value."""

    PASSED = "passed"
    FAILED = "failed"
    NOT_ATTEMPTED = "not attempted"  # the answer cell still holds the released stub


@dataclass
class ExerciseResult:
    id: str
    title: str
    points: float
    score: float
    status: Status
    message: str = ""  # for the learner: trusted text only (autograder.values.messages)
    hint: str = ""
    detail: str = ""  # for the instructor: the raw errors the run printed (the learner's code wrote them)
    failed_checks: list[dict] = field(default_factory=list)  # autograder.values.messages.Failure: what every report says

    def __post_init__(self) -> None:
        self.status = Status(self.status)  # read back from JSON as a plain string

    def learner_lines(self) -> list[str]:
        """What a learner is told of this exercise, wherever they read it (``check``, ``progress``, the feedback
        page): the message's lines, then each concept to revisit that they do not already name."""
        lines = [m.rstrip() for m in (self.message or "").splitlines() if m.strip()]
        for hint in [h.strip() for h in (self.hint or "").split(";") if h.strip()]:
            if not any(hint in m for m in lines):
                lines.append(f"revisit: {hint}")
        return lines


@dataclass
class NotebookResult:
    student: str
    assignment: str
    notebook: str
    exercises: list[ExerciseResult] = field(default_factory=list)
    tampering: list[str] = field(default_factory=list)
    error: str | None = None
    seed: int = 0
    seconds: float = 0.0
    submission_sha: str = ""
    submitted_at: str | None = None
    submitted_at_source: str = ""  # where that time comes from (autograder.adapters.times.submission_time)
    seconds_late: float = 0.0  # past the student's due date, extension included (autograder.adapters.late)
    late_penalty: float = 0.0  # points taken by the late policy
    extension_hours: float = 0.0  # the student's extension of the due date
    run: str = ""  # how the notebook ran: its grade path, all of it without hidden tests, and --full's diagnostic
    file: str = ""  # the submitted file's name, where it is not NOTEBOOK.ipynb (a renamed notebook)
    notes: list[str] = field(default_factory=list)  # for the instructor: renames, extra files, time evidence
    earlier_release: list[str] = field(default_factory=list)  # cells as an earlier release handed them out (no edit)

    @property
    def final_score(self) -> float:
        return final_score(self.score, self.late_penalty)

    @property
    def score(self) -> float:
        return sum(e.score for e in self.exercises)

    @property
    def max_score(self) -> float:
        return sum(e.points for e in self.exercises)

    @property
    def grader_error(self) -> bool:
        """Whether the grader, not the submission, is why this result is a zero."""
        return (self.error or "").startswith("grader error")

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "NotebookResult":
        known = {f.name for f in fields(cls)}
        ex_known = {f.name for f in fields(ExerciseResult)}
        d = {k: v for k, v in d.items() if k in known}
        d["exercises"] = [ExerciseResult(**{k: v for k, v in e.items() if k in ex_known}) for e in d.get("exercises", [])]
        return cls(**d)


@dataclass
class CellOutcome:
    """What one executed test cell produced."""

    ran: bool = False
    payload: dict | None = None  # the hidden tests' observations (the learner's kernel made them)
    error: str | None = None  # the first error, as raised (raw: for the instructor)
    error_name: str | None = None
    error_line: int | None = None  # the cell's own line the traceback names (its innermost frame in this cell)
    error_frames: list[tuple[int | None, int]] = field(default_factory=list)  # every cell frame: (count, line)
    count: int | None = None  # the cell's execution count, which its frames name
    answer_error: str | None = None  # the first error of the exercise's answer cell
    answer_error_line: int | None = None  # the answer cell's line it names


@dataclass
class Reference:
    """A notebook's reference observations per exercise, or why the reference could not run."""

    observations: dict[str, dict] | None = None
    failure: str | None = None

    @property
    def ok(self) -> bool:
        return self.failure is None and self.observations is not None

    def of(self, exercise: str) -> dict | None:
        return (self.observations or {}).get(exercise)
