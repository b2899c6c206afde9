"""``autograder export``: the grades as CSV, through nbgrader's own extension point for exports.

Two layouts: one row per student and assignment (score, lateness, penalty, final score, what
went wrong), or ``--format canvas``, the gradebook import Canvas expects (one row per student,
one column per assignment, a *Points Possible* row; Canvas matches rows by its own user ID,
which the roster maps from student ids).

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

COLUMNS = ["assignment", "student", "score", "max_score", "timestamp", "timestamp_source", "days_late",
           "late_penalty", "final_score", "notes"]


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
                notes, sources, late_s = [], set(), 0.0
                for nb in a.notebooks:
                    r = store.get(a.name, s.id, nb.name)
                    if r is not None:
                        notes += ([r.error] if r.error else []) + r.tampering
                        sources.add(r.submitted_at_source)
                        late_s = max(late_s, r.seconds_late)
                penalty = float(sub.late_submission_penalty or 0.0)
                rows.append({"assignment": a.name, "student": s.id, "score": sub.score,
                             "max_score": sub.max_score, "timestamp": sub.timestamp or "",
                             "timestamp_source": "; ".join(sorted(x for x in sources if x)),
                             "days_late": round(late_s / 86400, 3), "late_penalty": penalty,
                             "final_score": max(0.0, sub.score - penalty), "notes": "; ".join(notes)})
        return rows

    def export(self, gradebook: Gradebook) -> None:
        rows = self.rows(gradebook)
        with open(self.to or "grades.csv", "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=COLUMNS)
            w.writeheader()
            w.writerows(rows)
        print(f"wrote {len(rows)} row(s) to {self.to or 'grades.csv'}")


CANVAS_HEAD = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]


def canvas_rows(rows: list[dict], roster: dict[str, str] | None) -> list[list]:
    """Canvas's gradebook import: a header, *Points Possible*, then a row per student (final scores)."""
    assignments = sorted({r["assignment"] for r in rows})
    maxima = {a: max(float(r["max_score"]) for r in rows if r["assignment"] == a) for a in assignments}
    by_student: dict[str, dict] = {}
    for r in rows:
        by_student.setdefault(r["student"], {})[r["assignment"]] = r["final_score"]
    lms = {student: lms_id for lms_id, student in (roster or {}).items()}
    out = [CANVAS_HEAD + assignments, ["Points Possible", "", "", "", ""] + [maxima[a] for a in assignments]]
    for student in sorted(by_student):
        out.append([student, lms.get(student, ""), student, student, ""] +
                   [by_student[student].get(a, "") for a in assignments])
    return out


def export_command(args) -> int:
    root = course.find_root()
    db = root / "gradebook.db"
    if not db.is_file():
        print("no gradebook.db: grade something first", file=sys.stderr)
        return 2
    with Gradebook(f"sqlite:///{db}") as gb:
        plugin = GradesExport(to=args.to)
        if getattr(args, "format", "rows") != "canvas":
            plugin.export(gb)
            return 0
        rows = plugin.rows(gb)
    from .collect import read_roster

    roster = read_roster(args.roster) if getattr(args, "roster", None) else None
    table = canvas_rows(rows, roster)
    with open(args.to, "w", newline="") as f:
        csv.writer(f).writerows(table)
    missing = [r[0] for r in table[2:] if not r[1]]
    print(f"wrote {len(table) - 2} student row(s) for Canvas to {args.to}")
    if missing:
        print(f"no Canvas ID for {len(missing)} student(s) (give --roster): {', '.join(missing[:10])}", file=sys.stderr)
    return 0
