"""The grades as CSV, through nbgrader's own extension point for exports (``autograder export`` and
``nbgrader export`` both write them with :class:`GradesExport`).

Two layouts: one row per student and assignment (score, lateness, penalty, final score, what
went wrong), or ``--format canvas``, the gradebook import Canvas expects (one row per student,
one column per assignment, a *Points Possible* row; Canvas matches rows by its own user ID,
which the roster, or the gradebook's ``lms_user_id``, gives for each student id).

The assignments exported are the ones due or graded: an assignment whose due date (the late policy's, else the
gradebook's) has passed, or that has a submission in the gradebook; one handed out to nobody yet and never due
would only fill an LMS with zeros (``--all-assignments``, ``--GradesExport.all_assignments=True``, exports every
one the gradebook knows).  Every student gets a row for each of them, submitted or not: the students of the
gradebook's students table (``nbgrader db student add/import``, and everyone graded) and, with ``--roster``,
every student of the roster (:mod:`autograder.adapters.lms_roster`).  A student with no submission gets 0 of the
assignment's points and the note ``no submission`` once the assignment is due for them (their extension
counted), so a missing submission is never a missing row that an LMS import would skip silently; before that
the score is left empty, with the note ``not due yet``.  A Canvas row needs the student's Canvas ID: one
without (a student of the gradebook the roster does not list) is left out of the file, and its student named.

:class:`GradesExport` is an nbgrader ``ExportPlugin``; ``nbgrader_config.py`` makes it
``ExportApp.plugin_class``, so ``nbgrader export`` writes the same file (its roster:
``--GradesExport.roster=lms-roster.csv``).  Beside nbgrader's scores (manual overrides included)
and the late penalty grading recorded, each row says where the submission time came from and
what went wrong or was tampered with, from the result store.
"""

from __future__ import annotations

import csv
import io

import datetime as dt

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.plugins import ExportPlugin
from traitlets import Bool, Unicode

from autograder.adapters import late, lms_roster
from autograder.grading.store import ResultStore
from autograder.values import course
from autograder.values.files import kept_line, write_for_people
from autograder.values.records import final_score

COLUMNS = ["assignment", "student", "score", "max_score", "timestamp", "timestamp_source", "days_late",
           "late_penalty", "final_score", "notes"]
NO_SUBMISSION = "no submission"


NOT_DUE = "not due yet"
NOT_GRADED = "not graded now (held until its submission time reads, or not graded yet): see autograder grade"
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def cell(value):
    """A CSV cell a spreadsheet shows as text: a string that would start a formula (an id, a note naming a
    file a learner chose) gets a leading apostrophe, as OWASP advises against CSV injection; numbers stay."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


class GradesExport(ExportPlugin):
    """nbgrader's export plugin for this course: one row per student and assignment (see the module's docstring)."""

    roster = Unicode("", help="roster CSV (see autograder.adapters.lms_roster): its students are exported too").tag(config=True)
    all_assignments = Bool(False, help="export every assignment the gradebook knows, not only those due or graded"
                           ).tag(config=True)
    left_out: list[str] = []  # the assignments the last rows() left out, neither due nor graded

    def _due(self, rules, a, student: str | None = None) -> dt.datetime | None:
        """When ``a`` is due (for ``student``, their extension added): the late policy's date, else the
        gradebook's; None when it has none."""
        due = late.due_date(rules, a.name) or a.duedate
        extra = late.extension(rules, a.name, student) if student and due is not None else None
        return due + extra if due is not None and extra else due

    def students(self, gradebook: Gradebook, extra: tuple[str, ...] = ()) -> list[str]:
        """Every student to export: the gradebook's students table, then the roster's, once each."""
        found = [s.id for s in gradebook.students]
        found += [s for s in extra if s not in found]
        return [s for s in found if not self.student or s in self.student]

    def rows(self, gradebook: Gradebook, students: tuple[str, ...] = ()) -> list[dict]:
        root = course.find_root()
        store, rules = ResultStore(root), late.policy(root)
        if not students and self.roster:
            students = lms_roster.read(self.roster).students
        everyone = self.students(gradebook, students)
        now = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)  # nbgrader's times: naive UTC
        rows, self.left_out = [], []
        for a in gradebook.assignments:
            if self.assignment and a.name not in self.assignment:
                continue
            due = self._due(rules, a)
            if not (self.all_assignments or a.submissions or (due is not None and due <= now)):
                self.left_out.append(a.name)
                continue
            for student in everyone:
                try:
                    sub = gradebook.find_submission(a.name, student)
                except MissingEntry:
                    mine = self._due(rules, a, student)
                    owed = mine is None or mine <= now
                    rows.append({"assignment": a.name, "student": student, "score": 0.0 if owed else "",
                                 "max_score": a.max_score, "timestamp": "", "timestamp_source": "",
                                 "days_late": 0.0 if owed else "", "late_penalty": 0.0 if owed else "",
                                 "final_score": 0.0 if owed else "",
                                 "notes": NO_SUBMISSION if owed else f"{NOT_DUE} (due {mine:%Y-%m-%d %H:%M} UTC)"})
                    continue
                notes, sources, late_s = [], set(), 0.0
                for nb in a.notebooks:
                    r = store.get(a.name, student, nb.name)
                    if r is not None:
                        notes += ([r.error] if r.error else []) + r.tampering + r.notes
                        sources.add(r.submitted_at_source)
                        late_s = max(late_s, r.seconds_late)
                    else:
                        notes.append(f"{nb.name}: {NOT_GRADED}")
                penalty = float(sub.late_submission_penalty or 0.0)
                rows.append({"assignment": a.name, "student": student, "score": sub.score,
                             "max_score": sub.max_score, "timestamp": sub.timestamp or "",
                             "timestamp_source": "; ".join(sorted(x for x in sources if x)),
                             "days_late": round(late_s / 86400, 3), "late_penalty": penalty,
                             "final_score": final_score(sub.score, penalty), "notes": "; ".join(notes)})
        return rows

    def export(self, gradebook: Gradebook, students: tuple[str, ...] = ()) -> None:
        rows = self.rows(gradebook, students)
        text = io.StringIO(newline="")
        w = csv.DictWriter(text, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows({k: cell(v) for k, v in row.items()} for row in rows)
        write_export(self.to or "grades.csv", text.getvalue())
        print(f"wrote {len(rows)} row(s) to {self.to or 'grades.csv'}")
        say_missing(rows)
        say_left_out(self.left_out)


def write_export(to: str, text: str) -> None:
    """The export's file, through the one writer for files made for people (a person's own file there is kept)."""
    aside = write_for_people(to, text, course.find_root())
    if aside is not None:
        print(kept_line(to, aside))


def say_left_out(names: list[str]) -> None:
    if names:
        print(f"left out {len(names)} assignment(s) neither due nor graded: {', '.join(names[:6])}"
              + (" ..." if len(names) > 6 else "") + " (--all-assignments exports them too)")


def say_missing(rows: list[dict]) -> None:
    missing = [f"{r['student']} ({r['assignment']})" for r in rows if r["notes"] == NO_SUBMISSION]
    if missing:
        print(f"{len(missing)} with no submission, exported as 0: {', '.join(missing[:10])}"
              + (" ..." if len(missing) > 10 else ""))


CANVAS_HEAD = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]


def canvas_rows(rows: list[dict], lms_ids: dict[str, str], names: dict[str, str] | None = None,
                sections: dict[str, str] | None = None) -> list[list]:
    """Canvas's gradebook import: a header, *Points Possible*, then a row per student (final scores).

    ``lms_ids``: student id -> Canvas user ID; ``names`` and ``sections``: what Canvas shows, where known."""
    assignments = sorted({r["assignment"] for r in rows})
    maxima = {a: max(float(r["max_score"]) for r in rows if r["assignment"] == a) for a in assignments}
    by_student: dict[str, dict] = {}
    for r in rows:
        by_student.setdefault(r["student"], {})[r["assignment"]] = r["final_score"]
    names, sections = names or {}, sections or {}
    out = [CANVAS_HEAD + assignments, ["Points Possible", "", "", "", ""] + [maxima[a] for a in assignments]]
    for student in sorted(by_student):
        out.append([names.get(student, student), lms_ids.get(student, ""), student, student,
                    sections.get(student, "")] + [by_student[student].get(a, 0.0) for a in assignments])
    return out
