"""The result store: each graded notebook's result, kept beside the course with what decided it.

One JSON file per student and notebook under ``.autograder/results/``, written atomically.  Each
entry keeps, beside the result, the inputs that decided it: what decides the run (the submission,
the release with its hidden tests and reference, the grader's version, the hidden-test seed, the
limits: :func:`autograder.grading.jobs.run_inputs`) and what decides the lateness (the policy that
applies to that student and the submission time: :class:`autograder.adapters.late.Terms`).  A result is
reused only while its run inputs are unchanged, so a killed run resumes where it stopped and
regrading is idempotent; a change of policy alone re-records it without running anything.  A
grader error is kept like any other result (``grade --retry-errors`` regrades those).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from autograder.values.files import write_atomic
from autograder.values.records import NotebookResult


@dataclass
class Entry:
    """One stored result and what decided it."""

    key: str  # a digest of ``inputs``
    result: NotebookResult
    inputs: dict = field(default_factory=dict)  # what decided the run: submission, tests, grader, seed, limits
    terms: dict = field(default_factory=dict)  # what decided the lateness (autograder.adapters.late.Terms.as_dict)
    runner: dict = field(default_factory=dict)  # where it ran (a Slurm node, its GPU)


class ResultStore:
    def __init__(self, root: Path) -> None:
        self.base = Path(root) / ".autograder" / "results"

    def path(self, assignment: str, student: str, notebook: str) -> Path:
        return self.base / assignment / student / f"{notebook}.json"

    def recorded(self, assignment: str | None = None) -> list[tuple[str, str, str]]:
        """``(assignment, student, notebook)`` of every stored result (of ``assignment`` alone, when given),
        sorted; whether each still reads is :meth:`entry`'s to say."""
        pattern = f"{assignment}/*/*.json" if assignment else "*/*/*.json"
        return sorted((p.parent.parent.name, p.parent.name, p.stem) for p in self.base.glob(pattern))

    def entry(self, assignment: str, student: str, notebook: str) -> Entry | None:
        """The stored entry, whatever it was graded with (None when there is none or it does not read)."""
        try:
            data = json.loads(self.path(assignment, student, notebook).read_text())
            return Entry(str(data["key"]), NotebookResult.from_dict(data["result"]), dict(data.get("inputs") or {}),
                         dict(data.get("terms") or {}), dict(data.get("runner") or {}))
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def get(self, assignment: str, student: str, notebook: str, key: str | None = None) -> NotebookResult | None:
        """The stored result (only if it was stored for ``key``, when given)."""
        e = self.entry(assignment, student, notebook)
        if e is None or (key is not None and e.key != key):
            return None
        return e.result

    def remove(self, assignment: str, student: str, notebook: str) -> bool:
        """Forget a notebook's recorded result (its grade no longer stands); whether there was one."""
        path = self.path(assignment, student, notebook)
        if path.is_file():
            path.unlink()
            return True
        return False

    def put(self, entry: Entry) -> None:
        r = entry.result
        write_atomic(self.path(r.assignment, r.student, r.notebook),
                     json.dumps({"key": entry.key, "inputs": entry.inputs, "terms": entry.terms,
                                 "result": r.to_dict(), "runner": entry.runner}, indent=1))
