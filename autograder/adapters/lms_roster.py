"""The LMS roster: who the students are, and which LMS id each one has, read in one place (the class server's
roster, ``username,role``, is another file: :mod:`autograder.values.rosters` tells them apart).

``autograder collect`` maps the LMS ids in a download's file names to student ids through it, and
``autograder export`` adds every roster student to the grades (a student with no submission gets
0, never a missing row) and gives Canvas its own user ids.  A roster is read the way spreadsheets
and LMSs write CSV files, so that an instructor never has to clean one by hand:

* a CSV with the columns ``lms_id`` and ``student_id``, in any case and order (``LMS_ID``,
  ``Student ID``), with or without a UTF-8 byte-order mark, CRLF line ends, spaces after the
  commas, ``;`` or tabs between the columns, blank lines;
* Canvas's own gradebook export (``Student, ID, SIS User ID, SIS Login ID, Section`` and the
  assignment columns): Canvas's ``ID`` is the LMS id and ``SIS User ID`` the student id
  (``SIS Login ID`` where the first is empty); its rows without an ID (*Points Possible*,
  *Manual Posting*) and the ones with no SIS id at all (Canvas's test student) are not students.

Every student id, from a roster here or from a download's file names in :mod:`autograder.adapters.lms`,
passes :func:`check_id` before it becomes a folder in ``submitted/`` or a row in the grades: one
plain name (no ``/``, ``\\``, ``.``, ``..``, leading ``.`` or ``-``), no control characters or
line breaks, no comma, no spreadsheet formula start (``=``, ``+``, ``@``, ``-``), and already in
Unicode NFKC form (so that no look-alike of another student's id gets a folder of its own).  A
roster row with such an id is a :class:`~autograder.values.errors.UserError` naming the row.

Whatever cannot be read is a :class:`~autograder.values.errors.UserError` that says what was found.
"""

from __future__ import annotations

import csv
import io
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from autograder.values import rosters
from autograder.values.errors import UserError

CANVAS_HINT = "or Canvas's gradebook export, with the columns Student, ID, SIS User ID, SIS Login ID"


@dataclass(frozen=True)
class Roster:
    """A read roster: the students in file order, and the maps both ways between LMS and student ids."""

    source: str
    students: tuple[str, ...]
    student_of: dict[str, str]  # LMS id -> student id
    lms_of: dict[str, str]  # student id -> LMS id
    names: dict[str, str] = field(default_factory=dict)  # student id -> the name the LMS shows, where it gives one
    sections: dict[str, str] = field(default_factory=dict)  # student id -> section, where the LMS gives one


def check_id(value: str) -> str | None:
    """Why ``value`` cannot be a student id (a folder name in ``submitted/``, a row of a CSV), or None."""
    if not value:
        return "it is empty"
    if value in (".", ".."):
        return "it is '.' or '..'"
    if "/" in value or "\\" in value:
        return "it holds '/' or '\\'"
    if any(unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp") for c in value):
        return "it holds a control character or a line break"
    if value[0] in ".-":
        return "it starts with '.' or '-'"
    if value[0] in "=+@":
        return "it starts like a spreadsheet formula ('=', '+', '@', '-')"
    if "," in value:
        return "it holds a comma"
    if unicodedata.normalize("NFKC", value) != value:
        return f"it is not in Unicode NFKC form (it reads like {unicodedata.normalize('NFKC', value)!r})"
    return None


def _check_id(path: str, line: int, what: str, value: str) -> None:
    """A student id becomes a folder name in ``submitted/`` and a row in the grades: see :func:`check_id`."""
    why = check_id(value)
    if why:
        raise UserError(f"{path}, line {line}: {what} {value!r} cannot be a folder name or a grades row "
                        f"({why}): correct it in the roster")


def _delimiter(first_line: str) -> str:
    """``,`` unless the header line holds none and does hold ``;`` or a tab (spreadsheets in some locales)."""
    if "," in first_line:
        return ","
    for d in (";", "\t"):
        if d in first_line:
            return d
    return ","


def read(path: str | Path) -> Roster:
    """The roster in ``path`` (see the module's docstring); a :class:`UserError` when it cannot be read."""
    shown = str(path)
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise UserError(f"no roster at {shown}: give the path of the LMS roster CSV (lms_id,student_id)") from None
    except OSError as exc:
        raise UserError(f"cannot read the roster {shown}: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UserError(f"{shown} is not UTF-8 text: save the roster as \"CSV UTF-8\" and try again") from None
    lines = text.splitlines()
    while lines and not lines[0].strip():
        lines.pop(0)
    if not lines:
        raise UserError(f"{shown} is empty: an LMS roster needs the columns lms_id and student_id ({CANVAS_HINT})")
    start = len(text.splitlines()) - len(lines)  # blank lines skipped above the header
    reader = csv.reader(io.StringIO("\n".join(lines)), delimiter=_delimiter(lines[0]), skipinitialspace=True)
    rows = list(reader)
    header = [h.strip() for h in rows[0]]
    keys = [rosters.header_key(h) for h in header]
    which = rosters.kind(header)
    if which == rosters.CLASS:
        raise UserError(rosters.wrong_roster(shown, rosters.LMS))
    if which is None:
        found = ", ".join(h for h in header if h) or "no column names"
        raise UserError(f"{shown}: an LMS roster needs the columns lms_id and student_id ({CANVAS_HINT}); "
                        f"found: {found}")
    if {"lms_id", "student_id"} <= set(keys):
        lms_col, student_cols, canvas = keys.index("lms_id"), [keys.index("student_id")], False
    else:  # Canvas's gradebook export (rosters.kind)
        lms_col, canvas = keys.index("id"), True
        student_cols = [keys.index(k) for k in ("sis_user_id", "sis_login_id") if k in keys]
    name_col = keys.index("student") if canvas and "student" in keys else None
    section_col = keys.index("section") if canvas and "section" in keys else None

    def cell(row: list[str], col: int | None) -> str:
        return row[col].strip() if col is not None and col < len(row) else ""

    students: list[str] = []
    student_of: dict[str, str] = {}
    lms_of: dict[str, str] = {}
    names: dict[str, str] = {}
    sections: dict[str, str] = {}
    for number, row in enumerate(rows[1:], start=start + 2):
        lms_id = cell(row, lms_col)
        student = next((cell(row, c) for c in student_cols if cell(row, c)), "")
        if not lms_id and not student:
            continue  # a blank line, or one of Canvas's rows that are not students (Points Possible)
        if canvas and (not lms_id or not student):
            continue  # Canvas's test student has no SIS id; its other non-student rows have no ID
        if not lms_id or not student:
            raise UserError(f"{shown}, line {number}: both lms_id and student_id are needed "
                            f"(found {lms_id or '(empty)'!s} and {student or '(empty)'!s})")
        _check_id(shown, number, "student id", student)
        if student_of.get(lms_id, student) != student:
            raise UserError(f"{shown}, line {number}: LMS id {lms_id} is given to both {student_of[lms_id]} "
                            f"and {student}: keep one")
        if lms_of.get(student, lms_id) != lms_id:
            raise UserError(f"{shown}, line {number}: student {student} has two LMS ids, {lms_of[student]} "
                            f"and {lms_id}: keep one")
        if student not in lms_of:
            students.append(student)
        student_of[lms_id] = student
        lms_of[student] = lms_id
        if cell(row, name_col):
            names[student] = cell(row, name_col)
        if cell(row, section_col):
            sections[student] = cell(row, section_col)
    if not students:
        raise UserError(f"{shown} lists no students (header: {', '.join(header)}): "
                        "add a row per student" + (" with an SIS User ID or SIS Login ID" if canvas else ""))
    return Roster(shown, tuple(students), student_of, lms_of, names, sections)
