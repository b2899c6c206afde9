"""``autograder export``: the grades as CSV, through nbgrader's own extension point for exports.

:class:`GradesExport` is an nbgrader ``ExportPlugin``; ``nbgrader_config.py`` makes it
``ExportApp.plugin_class``, so ``nbgrader export`` writes the same file.  Beside nbgrader's
scores (manual overrides included) each row says where the submission time came from and
what went wrong or was tampered with, from the result store.
"""

from __future__ import annotations

import csv
import sys

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.plugins import ExportPlugin

from . import course
from .store import ResultStore

COLUMNS = ["assignment", "student", "score", "max_score", "timestamp", "timestamp_source", "notes"]


class GradesExport(ExportPlugin):
    def rows(self, gradebook: Gradebook) -> list[dict]:
        store = ResultStore(course.find_root())
        rows = []
        for a in gradebook.assignments:
            if self.assignment and a.name not in self.assignment:
                continue
            for s in gradebook.students:
                if self.student and s.id not in self.student:
                    continue
                try:
                    sub = gradebook.find_submission(a.name, s.id)
                except MissingEntry:
                    continue
                notes, sources = [], set()
                for nb in a.notebooks:
                    r = store.get(a.name, s.id, nb.name)
                    if r is not None:
                        notes += ([r.error] if r.error else []) + r.tampering
                        sources.add(r.submitted_at_source)
                rows.append({"assignment": a.name, "student": s.id, "score": sub.score,
                             "max_score": sub.max_score, "timestamp": sub.timestamp or "",
                             "timestamp_source": "; ".join(sorted(x for x in sources if x)),
                             "notes": "; ".join(notes)})
        return rows

    def export(self, gradebook: Gradebook) -> None:
        rows = self.rows(gradebook)
        with open(self.to or "grades.csv", "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=COLUMNS)
            w.writeheader()
            w.writerows(rows)
        print(f"wrote {len(rows)} row(s) to {self.to or 'grades.csv'}")


def export_command(args) -> int:
    root = course.find_root()
    db = root / "gradebook.db"
    if not db.is_file():
        print("no gradebook.db: grade something first", file=sys.stderr)
        return 2
    with Gradebook(f"sqlite:///{db}") as gb:
        GradesExport(to=args.to).export(gb)
    return 0
