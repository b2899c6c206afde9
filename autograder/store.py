"""The result store: each graded notebook's result, kept beside the course and keyed by content.

One JSON file per student and notebook under ``.autograder/results/``, written atomically.
A result is reused while the submission and the solution it was graded with are unchanged,
so a killed run resumes where it stopped and regrading is idempotent.  A grader error is kept
like any other result (``grade --retry-errors`` regrades those).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from .records import NotebookResult


class ResultStore:
    def __init__(self, root: Path) -> None:
        self.base = Path(root) / ".autograder" / "results"

    def path(self, assignment: str, student: str, notebook: str) -> Path:
        return self.base / assignment / student / f"{notebook}.json"

    def get(self, assignment: str, student: str, notebook: str, key: str | None = None) -> NotebookResult | None:
        """The stored result (only if it was stored for ``key``, when given)."""
        try:
            data = json.loads(self.path(assignment, student, notebook).read_text())
            if key is not None and data.get("key") != key:
                return None
            return NotebookResult.from_dict(data["result"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def put(self, key: str, result: NotebookResult, runner: dict | None = None) -> None:
        p = self.path(result.assignment, result.student, result.notebook)
        p.parent.mkdir(parents=True, exist_ok=True)
        tmp = p.with_suffix(".tmp")
        tmp.write_text(json.dumps({"key": key, "result": result.to_dict(), "runner": runner or {}}, indent=1))
        os.replace(tmp, p)
