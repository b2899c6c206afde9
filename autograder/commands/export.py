"""``autograder export``: the grades as CSV (one row per student and assignment, or ``--format canvas``),
written by nbgrader's export plugin :class:`~autograder.adapters.export.GradesExport`, which says what is
exported and why."""

from __future__ import annotations

import csv
import io
import sys

from nbgrader.api import Gradebook

from autograder.adapters import lms_roster
from autograder.adapters.export import GradesExport, canvas_rows, cell, say_left_out, say_missing, write_export
from autograder.values import course
from autograder.values.errors import UserError


def run(args) -> int:
    root = course.find_root()
    db_url = course.gradebook_url(root)
    db = course.gradebook_file(db_url)
    if db is not None and not db.is_file():
        raise UserError(f"no gradebook in {root} ({db.name}): run `autograder grade` first, then export")
    listed = lms_roster.read(args.roster) if getattr(args, "roster", None) else None
    students = listed.students if listed else ()
    with Gradebook(db_url) as gb:
        plugin = GradesExport(to=args.to, all_assignments=getattr(args, "all_assignments", False))
        if getattr(args, "format", "rows") != "canvas":
            plugin.export(gb, students)
            return 0
        rows = plugin.rows(gb, students)
        lms_ids = {s.id: s.lms_user_id for s in gb.students if s.lms_user_id}
    if listed:
        lms_ids.update(listed.lms_of)
    # a row without a Canvas ID is one Canvas cannot match to a student: left out, and its student named
    unmatched = sorted({r["student"] for r in rows if not lms_ids.get(r["student"])})
    rows = [r for r in rows if lms_ids.get(r["student"])]
    table = canvas_rows(rows, lms_ids, listed.names if listed else None, listed.sections if listed else None)
    text = io.StringIO(newline="")
    csv.writer(text).writerows([cell(v) for v in row] for row in table)
    write_export(args.to, text.getvalue())
    print(f"wrote {len(table) - 2} student row(s) for Canvas to {args.to}")
    say_missing(rows)
    say_left_out(plugin.left_out)
    if unmatched:
        shown = ", ".join(unmatched[:10]) + (" ..." if len(unmatched) > 10 else "")
        if listed:
            print(f"left out of {args.to}, not in the roster {listed.source} and with no LMS id in the gradebook "
                  f"({len(unmatched)}): {shown} (add them to the roster to export them)", file=sys.stderr)
        else:
            print(f"left out of {args.to}, with no Canvas ID ({len(unmatched)}): {shown} (give --roster with their "
                  "Canvas IDs, or `nbgrader db student add ID --lms-user-id=CANVAS_ID`)", file=sys.stderr)
    return 0
