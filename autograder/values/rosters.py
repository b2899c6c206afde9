"""The course's two rosters, told apart by their header, so that each command names the other when handed it.

* The *LMS roster* says who is who in an LMS's downloads and grades: the columns ``lms_id,student_id``, or
  Canvas's gradebook export as it downloads (``Student, ID, SIS User ID, SIS Login ID, ...``).  ``collect``,
  ``handout`` and ``export`` read it (:mod:`autograder.adapters.lms_roster`).
* The *class roster* says who has an account on the class server: the columns ``username,role``.  ``hub
  start`` reads it (:mod:`autograder.hub.class_roster`).

Both are CSV files a spreadsheet may have written; :func:`kind` reads a header's column names the way both
readers do (any case; spaces, ``_`` and ``-`` alike) and :func:`wrong_roster` is the line a command says
when handed the other one.
"""

from __future__ import annotations

import re

LMS = "LMS roster"
CLASS = "class roster"
COLUMNS = {LMS: "lms_id,student_id (or Canvas's gradebook export, with the columns Student, ID, SIS User ID, "
                "SIS Login ID)",
           CLASS: "username,role (role: instructor or student)"}
USED_BY = {LMS: "collect, handout and export", CLASS: "hub start"}


def header_key(name: str) -> str:
    """``" LMS_ID"``, ``"Lms Id"`` and ``"lms-id"`` all read as ``lms_id``."""
    return re.sub(r"[\s_\-]+", "_", (name or "").strip().lower())


def kind(header: list[str]) -> str | None:
    """Which roster a header (its column names) is: :data:`LMS`, :data:`CLASS`, or None for neither."""
    keys = {header_key(h) for h in header}
    if {"lms_id", "student_id"} <= keys or ("id" in keys and keys & {"sis_user_id", "sis_login_id"}):
        return LMS
    if {"username", "role"} <= keys:
        return CLASS
    return None


def wrong_roster(path: str, expected: str) -> str:
    """The line a command says when handed the other roster than the ``expected`` one."""
    found = CLASS if expected == LMS else LMS
    return (f"{path} is {_a(found)} ({COLUMNS[found]}: for {USED_BY[found]}); this command takes {_a(expected)}, "
            f"with the columns {COLUMNS[expected]}")


def _a(roster: str) -> str:
    return ("an " if roster == LMS else "a ") + roster
