"""Rosters as spreadsheets and LMSs write them, and exports that list every student.

A roster saved by a spreadsheet (byte-order mark, CRLF, spaces after commas, headers in any case)
and Canvas's own gradebook export both read as rosters; a roster that cannot be read says what
it found.  The exports give every student of the gradebook and of the roster a row for every
assignment, with 0 and "no submission" where nothing was handed in.
"""

from __future__ import annotations

import csv
import sys
import zipfile

import pytest
from support import bare_fixture_course, fixture_course, run_cli, run_tool

from autograder.adapters import lms_roster
from autograder.values.errors import UserError

CANVAS_EXPORT = (
    "Student,ID,SIS User ID,SIS Login ID,Section,Tensors (1234),Current Score\r\n"
    "    Points Possible,,,,,12.00,(read only)\r\n"
    '"Smith, Jane",101,jsmith,jane.smith,Section A,10.00,83.3\r\n'
    '"Doe, John",102,,jdoe,Section B,,\r\n'
    '"Student, Test",999,,,,,\r\n'
)


def test_spreadsheet_roster(tmp_path):
    path = tmp_path / "roster.csv"
    path.write_bytes("\ufeffLMS_ID, Student_ID\r\n101, jane\r\n102 ,john\r\n\r\n".encode("utf-8"))
    r = lms_roster.read(path)
    assert r.students == ("jane", "john")
    assert r.student_of == {"101": "jane", "102": "john"} and r.lms_of == {"jane": "101", "john": "102"}


def test_canvas_gradebook_export_is_a_roster(tmp_path):
    path = tmp_path / "canvas.csv"
    path.write_bytes(("\ufeff" + CANVAS_EXPORT).encode("utf-8"))
    r = lms_roster.read(path)
    assert r.students == ("jsmith", "jdoe")  # SIS User ID, else SIS Login ID; no Points Possible, no test student
    assert r.student_of == {"101": "jsmith", "102": "jdoe"}
    assert r.names["jsmith"] == "Smith, Jane" and r.sections["jdoe"] == "Section B"


def test_a_roster_that_cannot_be_read_names_what_it_found(tmp_path):
    path = tmp_path / "roster.csv"
    path.write_text("Name,Email\nJane,jane@example.org\n")
    with pytest.raises(UserError) as err:
        lms_roster.read(path)
    assert "lms_id and student_id" in str(err.value) and "found: Name, Email" in str(err.value)
    path.write_text("lms_id,student_id\n101,jane\n101,john\n")
    with pytest.raises(UserError, match="101 is given to both jane and john"):
        lms_roster.read(path)
    path.write_text("lms_id,student_id\n101,../etc\n")
    with pytest.raises(UserError, match="cannot be a folder name"):
        lms_roster.read(path)
    with pytest.raises(UserError, match="no roster at"):
        lms_roster.read(tmp_path / "missing.csv")


@pytest.fixture
def released(tmp_path):
    """The fixture course, released: its gradebook knows the assignment (3 points) and no submission."""
    return fixture_course(tmp_path / "course")


def export(course, *args):
    return run_cli(["export", *args], course)


def due(course, dates: dict[str, str], extensions: dict | None = None) -> None:
    """The instructor's due dates (and extensions) in the course's nbgrader_config.py."""
    with open(course / "nbgrader_config.py", "a") as f:
        f.write(f"\nc.LatePolicy.due_dates = {dates!r}\nc.LatePolicy.extensions = {extensions or {}!r}\n")


@pytest.mark.slow
def test_students_without_a_submission_get_a_row_with_0(released, tmp_path):
    due(released, {"00_fixture": "2026-01-05 12:00:00 UTC"})  # due, and past
    # bob is in the gradebook's students table (nbgrader's own command), carol only in the roster
    add = run_tool([sys.executable, "-m", "nbgrader", "db", "student", "add", "bob", "--lms-user-id=202"], released)
    assert add.returncode == 0, add.stdout + add.stderr
    path = tmp_path / "roster.csv"
    path.write_bytes(b"\xef\xbb\xbfLMS_ID,Student_ID\r\n303,carol\r\n")
    out = export(released, "--roster", str(path), "--to", "grades.csv")
    assert out.returncode == 0, out.stderr
    rows = {r["student"]: r for r in csv.DictReader(open(released / "grades.csv"))}
    assert set(rows) == {"bob", "carol"}
    for r in rows.values():
        assert r["assignment"] == "00_fixture" and float(r["max_score"]) == 3.0
        assert float(r["score"]) == 0.0 and float(r["final_score"]) == 0.0 and r["notes"] == "no submission"
    assert "no submission" in out.stdout

    out = export(released, "--format", "canvas", "--roster", str(path), "--to", "canvas.csv")
    assert out.returncode == 0, out.stderr
    table = list(csv.reader(open(released / "canvas.csv")))
    assert table[1][0] == "Points Possible" and float(table[1][5]) == 3.0
    by = {r[2]: r for r in table[2:]}
    assert set(by) == {"bob", "carol"}
    assert by["bob"][1] == "202" and by["carol"][1] == "303"  # the gradebook's LMS id, the roster's
    assert float(by["bob"][5]) == 0.0 and float(by["carol"][5]) == 0.0


def test_export_without_a_gradebook_says_what_to_do(tmp_path):
    course = bare_fixture_course(tmp_path / "course")  # before anything is released or graded
    out = export(course, "--to", "grades.csv")
    assert out.returncode == 2
    assert len(out.stderr.strip().splitlines()) == 1 and "run `autograder grade` first" in out.stderr, out.stderr
    assert not (course / "grades.csv").exists()


def test_export_keeps_a_file_of_yours_and_replaces_its_own(released):
    mine = released / "grades.csv"
    mine.write_text("student,participation\nalice,5\n")
    out = export(released)
    assert out.returncode == 0, out.stderr
    kept = list(released.glob("grades.mine-*.csv"))
    assert len(kept) == 1 and kept[0].read_text() == "student,participation\nalice,5\n"
    assert f"kept as {kept[0].name}" in out.stdout and mine.read_text().startswith("assignment,student")
    again = export(released)
    assert again.returncode == 0 and "kept as" not in again.stdout and len(list(released.glob("grades.mine-*"))) == 1


@pytest.mark.slow
def test_the_canvas_export_holds_what_is_due_or_graded_and_rows_canvas_can_match(released, tmp_path):
    """Three assignments in the gradebook: one past its due date, one graded with no due date, one due next
    year and graded for nobody.  The export holds the first two (a student with no submission: 0, unless
    their extension runs on: left empty), the third with --all-assignments; a gradebook student with no
    Canvas ID is left out of the Canvas file and named as not in the roster."""
    import shutil
    import warnings

    from nbgrader.api import Gradebook

    for name in ("00_second", "00_third"):
        (released / "solutions" / name).mkdir()
        shutil.copy(released / "solutions" / "00_fixture" / "00_fixture.ipynb",
                    released / "solutions" / name / f"{name}.ipynb")
    out = run_cli(["release"], released)
    assert out.returncode == 0, out.stdout + out.stderr
    due(released, {"00_fixture": "2026-01-05 12:00:00 UTC", "00_third": "2099-01-05 12:00:00 UTC"},
        {"00_fixture": {"carol": 24 * 365 * 100}})
    with Gradebook(f"sqlite:///{released / 'gradebook.db'}") as gb, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nbgrader's own session warnings, as the gradebook's writer silences them
        gb.update_or_create_student("ann")  # what grading ann's 00_second recorded
        gb.update_or_create_submission("00_second", "ann")
    add = run_tool([sys.executable, "-m", "nbgrader", "db", "student", "add", "zed"], released)
    assert add.returncode == 0, add.stdout + add.stderr
    path = tmp_path / "roster.csv"
    path.write_text("lms_id,student_id\n101,ann\n102,bob\n103,carol\n")

    out = export(released, "--format", "canvas", "--roster", str(path), "--to", "canvas.csv")
    assert out.returncode == 0, out.stdout + out.stderr
    table = list(csv.reader(open(released / "canvas.csv")))
    assert table[0][5:] == ["00_fixture", "00_second"]
    by = {r[2]: r[5:] for r in table[2:]}
    assert set(by) == {"ann", "bob", "carol"}  # zed: no Canvas ID, so no row Canvas could match
    assert by["bob"] == ["0.0", "0.0"] and by["carol"] == ["", "0.0"] and by["ann"][0] == "0.0"
    assert "left out 1 assignment(s) neither due nor graded: 00_third" in out.stdout
    assert "zed" in out.stderr and "not in the roster" in out.stderr and "give --roster" not in out.stderr

    out = export(released, "--to", "grades.csv")
    rows = {(r["student"], r["assignment"]): r for r in csv.DictReader(open(released / "grades.csv"))}
    assert {a for _, a in rows} == {"00_fixture", "00_second"}
    assert rows[("zed", "00_fixture")]["notes"] == "no submission"

    out = export(released, "--format", "canvas", "--roster", str(path), "--to", "canvas.csv", "--all-assignments")
    assert out.returncode == 0, out.stdout + out.stderr
    table = list(csv.reader(open(released / "canvas.csv")))
    assert table[0][5:] == ["00_fixture", "00_second", "00_third"]
    assert all(r[7] == "" for r in table[2:]) and "neither due nor graded" not in out.stdout


@pytest.mark.slow
def test_each_roster_is_named_when_the_other_is_given(tmp_path):
    """The LMS roster (lms_id,student_id: collect, handout, export) and the class roster (username,role: hub
    start) are two files: each command handed the other says which it expected, in one line."""
    from autograder.hub.class_roster import read_roster

    lms, cls = tmp_path / "lms-roster.csv", tmp_path / "class-roster.csv"
    lms.write_text("lms_id,student_id\n101,jane\n")
    cls.write_text("username,role\nteach,instructor\njane,student\n")
    with pytest.raises(UserError) as err:
        read_roster(lms)
    assert "is an LMS roster" in str(err.value) and "takes a class roster, with the columns username,role" in \
        str(err.value), err.value
    canvas = tmp_path / "canvas.csv"
    canvas.write_text(CANVAS_EXPORT)
    with pytest.raises(UserError, match="is an LMS roster"):
        read_roster(canvas)
    with pytest.raises(UserError, match="is a class roster") as err:
        lms_roster.read(cls)
    assert "takes an LMS roster, with the columns lms_id,student_id" in str(err.value) and "hub start" in str(err.value)
    course = fixture_course(tmp_path / "course")
    download = tmp_path / "download.zip"
    with zipfile.ZipFile(download, "w") as z:
        z.writestr("jane_101_9001_00_fixture.ipynb", "{}")
    for args in (["export", "--roster", str(cls)], ["handout", "--roster", str(cls), "--to", str(tmp_path / "packs")],
                 ["collect", str(download), "--assignment", "00_fixture", "--roster", str(cls)]):
        out = run_cli(args, course)
        assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1, (args, out.stderr)
        assert "class roster" in out.stderr and "lms_id,student_id" in out.stderr, (args, out.stderr)
