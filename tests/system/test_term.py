"""A grade is a faithful function of everything that decides it, over a term of ordinary changes.

One small class (two assignments of the fixture course) is graded once for real; each test then
works on its own copy of that graded course and changes one thing an instructor changes mid-term
(a due date, an extension, a fixed reference, a late submission, a submission time), then checks
what ``grade`` re-records, what it runs, what its change list says and what the gradebook holds.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import attacks
import pytest
from support import LIMITS, fixture_course, run_command

from autograder.adapters import times

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("term")]

A, B = attacks.ASSIGNMENT, "00_second"
RIGHT = attacks.answers(attacks.CORRECT_1, attacks.CORRECT_2)
WRONG = attacks.answers(attacks.WRONG_1, attacks.CORRECT_2)


def run(course: Path, *args: str) -> subprocess.CompletedProcess:
    return run_command(list(args), course, env=LIMITS)


def graded_ok(out: subprocess.CompletedProcess) -> str:
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert "Traceback" not in out.stderr, out.stderr[-3000:]
    return out.stdout


def add_second_assignment(course: Path) -> None:
    """A second assignment: the fixture notebook under another name."""
    src = course / "solutions" / A / f"{A}.ipynb"
    (course / "solutions" / B).mkdir()
    shutil.copy(src, course / "solutions" / B / f"{B}.ipynb")
    out = run(course, "release", B)
    assert out.returncode == 0, out.stderr


def submit(course: Path, student: str, assignment: str, answers: dict, name: str | None = None,
           when: str | None = None) -> Path:
    release = json.loads((course / "notebooks" / assignment / f"{assignment}.ipynb").read_text())
    for cell in release["cells"]:
        gid = cell["metadata"].get("nbgrader", {}).get("grade_id")
        if gid in answers:
            cell["source"] = answers[gid]
    folder = course / "submitted" / student / assignment
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / (name or f"{assignment}.ipynb")
    path.write_text(json.dumps(release))
    if when:  # the collector's record, as autograder collect keeps it
        times.record(course, assignment, student, folder, when, times.COLLECTOR)
    return path


def change(out: str, student: str, assignment: str = A) -> str:
    """The line of the change list ``grade`` printed for one student's notebook."""
    tail = out.split("changes since the last recorded results:", 1)[1]
    lines = [ln.strip() for ln in tail.splitlines() if ln.strip().startswith(student + " ")
             and f"{assignment}/{assignment}" in ln]
    assert len(lines) == 1, out
    return " ".join(lines[0].split())


def stored(course: Path, assignment: str, student: str) -> dict:
    return json.loads((course / ".autograder" / "results" / assignment / student / f"{assignment}.json").read_text())


def penalty_in_gradebook(course: Path, assignment: str, student: str) -> float:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        return float(gb.find_submission(assignment, student).late_submission_penalty or 0.0)


@pytest.fixture(scope="module")
def term(tmp_path_factory):
    course = fixture_course(tmp_path_factory.mktemp("term") / "course")
    add_second_assignment(course)
    submit(course, "alice", A, RIGHT, when="2026-11-22 09:00:00.000000 UTC")
    submit(course, "bob", A, WRONG)  # copied in by hand: only the file's time
    submit(course, "carol", A, RIGHT, name=f"{A} (1).ipynb", when="2026-11-20 10:00:00.000000 UTC")
    submit(course, "dave", A, {}, name="scratch.ipynb")  # a copy of the release: carries A's cells too
    (course / "submitted" / "dave" / A / "notes.ipynb").write_text(json.dumps(
        {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": []}))
    submit(course, "dave", A, RIGHT, when="2026-11-20 10:00:00.000000 UTC")
    submit(course, "alice", B, RIGHT, when="2026-11-22 09:00:00.000000 UTC")
    first = graded_ok(run(course, "grade", "--workers", "2"))
    return course, first


@pytest.fixture
def course(term, tmp_path):
    return Path(shutil.copytree(term[0], tmp_path / "course", symlinks=True))


def test_the_first_grade_lists_every_result_as_new(term):
    course, out = term
    assert "5 graded for the first time" in out, out
    assert stored(course, A, "alice")["result"]["late_penalty"] == 0.0  # no due date yet


def test_an_unchanged_course_is_kept_and_says_so(course):
    out = graded_ok(run(course, "grade"))
    assert "5 notebook(s) already graded with the same submission" in out
    assert "graded 0 notebook(s)" in out and "changes since the last recorded results:\n  none" in out


def test_a_due_date_set_after_grading_is_applied_without_running_anything(course):
    with open(course / "nbgrader_config.py", "a") as f:
        f.write(f'\nc.LatePolicy.due_dates = {{"{A}": "2026-11-20 12:00:00 UTC"}}\n')
    out = graded_ok(run(course, "grade"))
    assert "reference run" not in out and "graded 0 notebook(s)" in out, out
    # 45 hours late: 2 started days, 10% each, of 3 points
    assert change(out, "alice") == "alice 00_fixture/00_fixture 3/3 -> 2.4/3 (late: -0.6) (new policy (due date))"
    assert stored(course, A, "alice")["result"]["late_penalty"] == pytest.approx(0.6)
    assert penalty_in_gradebook(course, A, "alice") == pytest.approx(0.6)
    assert stored(course, B, "alice")["result"]["late_penalty"] == 0.0  # B has no due date
    # an extension given afterwards takes it back, again without a kernel
    with open(course / "nbgrader_config.py", "a") as f:
        f.write(f'\nc.LatePolicy.extensions = {{"{A}": {{"alice": 48}}}}\n')
    out = graded_ok(run(course, "grade"))
    assert change(out, "alice").endswith("2.4/3 (late: -0.6) -> 3/3 (new policy (extension))")
    assert "graded 0 notebook(s)" in out
    assert penalty_in_gradebook(course, A, "alice") == 0.0


def test_a_file_time_alone_never_makes_a_student_late(course):
    """bob's notebook was copied into submitted/ by hand long after the due date: only its file time says so."""
    with open(course / "nbgrader_config.py", "a") as f:
        f.write(f'\nc.LatePolicy.due_dates = {{"{A}": "2026-11-20 12:00:00 UTC"}}\n')
    out = graded_ok(run(course, "grade"))
    r = stored(course, A, "bob")["result"]
    assert r["late_penalty"] == 0.0 and r["submitted_at_source"] == "file time in the submissions folder"
    assert any("late by the file's time only" in n for n in r["notes"])
    assert "warning: 1 student(s) have no submission time a late penalty may rest on" in out and ": bob." in out
    assert "--submitted-at" in out
    # the instructor gives the real time: the penalty now rests on it
    out = graded_ok(run(course, "grade", A, "--student", "bob", "--submitted-at", "2026-11-21 13:00:00 UTC"))
    r = stored(course, A, "bob")["result"]
    assert r["submitted_at_source"] == "instructor (--submitted-at)"
    assert r["late_penalty"] == pytest.approx(0.4)  # 25 hours: 2 started days of 2 points
    assert change(out, "bob").endswith("2/3 -> 1.6/3 (late: -0.4) (new policy (submission time))")
    assert "warning" not in out


def test_a_fixed_reference_regrades_exactly_the_notebooks_it_touches(course):
    """The reference of 00_fixture's exercise 0.1 was wrong where only the hidden test looks (x + 2 past two
    elements): every correct answer failed it, until it was fixed."""
    sol = course / "solutions" / A / f"{A}.ipynb"
    broken = sol.read_text()
    sol.write_text(broken.replace("return x + 1\\n", "return x + 1 if x.numel() == 2 else x + 2\\n", 1))
    assert sol.read_text() != broken
    out = graded_ok(run(course, "grade"))
    assert "graded 4 notebook(s)" in out  # A's four students, not B's
    assert change(out, "alice") == "alice 00_fixture/00_fixture 3/3 -> 2/3 (new tests or reference)"
    assert stored(course, B, "alice")["result"]["exercises"][0]["status"] == "passed"
    sol.write_text(broken)  # fixed mid-term: who gains is listed before anyone exports
    out = graded_ok(run(course, "grade"))
    assert "graded 4 notebook(s)" in out
    assert change(out, "carol").endswith("2/3 -> 3/3 (new tests or reference)")


def test_prose_fixed_in_the_solution_regrades_no_one_and_a_new_cell_does(course):
    """A typo fixed in the text decides no grade; a cell added moves the cells after it, which the reference
    names by place, so it does."""
    import nbformat

    sol = course / "solutions" / A / f"{A}.ipynb"
    nb = nbformat.read(sol, as_version=4)
    prose = next(c for c in nb.cells if c.cell_type == "markdown" and not c.metadata.get("nbgrader"))
    prose.source += " (a typo fixed)"
    nbformat.write(nb, sol)
    out = graded_ok(run(course, "grade"))
    assert "graded 0 notebook(s)" in out and "changes since the last recorded results:\n  none" in out, out
    nb.cells.insert(nb.cells.index(prose) + 1, nbformat.v4.new_markdown_cell("A new paragraph."))
    nbformat.write(nb, sol)
    out = graded_ok(run(course, "grade"))
    assert "graded 4 notebook(s)" in out, out


def test_one_seed_per_assignment_for_the_term(course):
    seeds = json.loads((course / ".autograder" / "seeds.json").read_text())
    assert set(seeds) == {A, B}
    assert stored(course, A, "alice")["result"]["seed"] == seeds[A]
    assert stored(course, A, "bob")["result"]["seed"] == seeds[A]
    # a late student is graded by the same tests, without a fresh reference run
    submit(course, "erin", A, RIGHT, when="2026-11-20 10:00:00.000000 UTC")
    references = {p: p.stat().st_mtime_ns for p in (course / ".autograder" / "reference").glob("*.json")}
    out = graded_ok(run(course, "grade", A, "--student", "erin"))
    assert stored(course, A, "erin")["result"]["seed"] == seeds[A]
    # the reference came from its cache: no reference file was made for it (its time is no proof on a busy runner)
    assert references and {p: p.stat().st_mtime_ns for p in (course / ".autograder" / "reference").glob("*.json")} \
        == references, out
    assert f"reference recorded earlier, reused: {A}/{A}" in out and "reference run:" not in out, out
    assert not any(str(seeds[A]) in p.read_text(errors="replace") for p in (course / "notebooks").rglob("*.ipynb"))
    # rotated only on request, and then every result of that assignment is graded again
    out = graded_ok(run(course, "grade", A, "--new-seed"))
    assert json.loads((course / ".autograder" / "seeds.json").read_text())[A] != seeds[A]
    assert "graded 5 notebook(s)" in out and "new hidden-test seed" in out


def test_a_renamed_notebook_is_graded_by_its_cells(course):
    r = stored(course, A, "carol")["result"]
    assert r["exercises"][0]["score"] + r["exercises"][1]["score"] == 3.0
    assert r["file"] == f"{A} (1).ipynb"
    assert any("graded 00_fixture (1).ipynb as 00_fixture.ipynb (renamed" in n for n in r["notes"])


def test_extra_notebooks_in_a_submission_are_listed(course):
    r = stored(course, A, "dave")["result"]
    assert sum(e["score"] for e in r["exercises"]) == 3.0  # the notebook of the right name is graded
    assert any(n.startswith("scratch.ipynb is not graded") for n in r["notes"])
    assert any(n.startswith("notes.ipynb is not graded") for n in r["notes"])


def test_a_student_with_no_submission_gets_one_line(course):
    out = run(course, "grade", A, "--student", "nobody")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    assert "no submission of nobody" in out.stderr and "alice" in out.stderr
    out = run(course, "grade", "99_nothing")
    assert out.returncode == 2 and "no assignment named 99_nothing" in out.stderr and A in out.stderr


def test_a_lost_gradebook_is_filled_again(course):
    """A result is reused only with its record: a gradebook deleted (or a fresh one) is graded into again."""
    (course / "gradebook.db").unlink()
    out = graded_ok(run(course, "grade"))
    assert "graded 5 notebook(s)" in out
    assert "its record in the gradebook or autograded/ was missing" in out
    assert penalty_in_gradebook(course, A, "alice") == 0.0


def test_a_time_inside_a_submission_is_the_learners_word(course):
    """A learner controls every file of the folder they hand in: a collector's or an instructor's time planted
    there is ignored, and nbgrader's timestamp that does not read as a time is never taken as on time: the
    notebook is held (nbgrader's Autograde stops at it too), its earlier grade taken back, until the
    instructor gives the time."""
    with open(course / "nbgrader_config.py", "a") as f:
        f.write(f'\nc.LatePolicy.due_dates = {{"{A}": "2026-11-20 12:00:00 UTC"}}\n')
    bob = course / "submitted" / "bob" / A
    (bob / ".collected_at").write_text("2026-11-01 00:00:00.000000 UTC")
    (bob / ".submitted_at").write_text("2026-11-01 00:00:00.000000 UTC")
    (course / "submitted" / "carol" / A / "timestamp.txt").write_text("the day before the due date")
    times.record(course, A, "carol", course / "submitted" / "carol" / A, "2026-11-19 10:00:00 UTC", times.COLLECTOR)
    out = graded_ok(run(course, "grade"))
    assert stored(course, A, "bob")["result"]["submitted_at_source"] == "file time in the submissions folder"
    assert stored(course, A, "carol")["result"]["late_penalty"] == 0.0  # the collector's record outranks it
    # a resubmission the record does not vouch for, beside nbgrader's timestamp that does not read: held
    (course / "submitted" / "carol" / A / f"{A} (1).ipynb").write_text(
        (course / "submitted" / "carol" / A / f"{A} (1).ipynb").read_text() + " ")
    out = run(course, "grade")
    graded_ok(out)
    assert f"held, not graded: carol {A}/{A}" in out.stderr and "--submitted-at" in out.stderr
    assert not (course / ".autograder" / "results" / A / "carol").joinpath(f"{A}.json").exists()
    assert not (course / "autograded" / "carol" / A / f"{A}.ipynb").exists()
    assert re.search(rf"carol +{A}/{A} +\S+ -> taken back \(held until its submission time reads\)", out.stdout), out.stdout
    graded_ok(run(course, "export", "--to", "grades.csv"))
    import csv

    carol = {r["student"]: r for r in csv.DictReader(open(course / "grades.csv"))}["carol"]
    assert f"{A}: not graded now (held until its submission time reads" in carol["notes"], carol
    # the instructor gives the time: graded, on that time
    graded_ok(run(course, "grade", A, "--student", "carol", "--submitted-at", "2026-11-21 12:00:00 UTC"))
    r = stored(course, A, "carol")["result"]
    assert r["submitted_at_source"] == times.INSTRUCTOR and r["late_penalty"] == 0.3, ([(e["id"], e["score"]) for e in r["exercises"]], r["seconds_late"], r["error"])


def test_an_export_cell_never_starts_a_formula(course):
    """A file name a learner chose reaches the notes: a spreadsheet must show it as text, not run it."""
    import csv

    submit(course, "zed", A, RIGHT, when="2026-11-20 10:00:00.000000 UTC")
    (course / "submitted" / "zed" / A / "=HYPERLINK(1).ipynb").write_text("{}")
    times.record(course, A, "zed", course / "submitted" / "zed" / A, "2026-11-20 10:00:00 UTC", times.COLLECTOR)
    graded_ok(run(course, "grade", A, "--student", "zed"))
    graded_ok(run(course, "export", "--to", "grades.csv"))
    rows = {(r["student"], r["assignment"]): r for r in csv.DictReader(open(course / "grades.csv"))}
    zed = rows[("zed", A)]
    assert zed["notes"].startswith("'=HYPERLINK(1).ipynb is not graded"), zed
    assert float(zed["final_score"]) == 3.0
    # a submission folder removed (a wrong collect undone by hand): its recorded grade is named, never silent
    shutil.rmtree(course / "submitted" / "zed")
    out = graded_ok(run(course, "grade"))
    assert "recorded grades whose submission is no longer in submitted/" in out and f"zed ({A})" in out, out


def test_no_grading_code_imports_a_module_outside_the_grader_version():
    """The grader's version leaves out the commands no grade depends on; nothing on the grading path may
    import one of them, or a change to it would go unseen by the results it decides."""
    import subprocess

    from autograder.grading.jobs import NOT_GRADING

    probe = ("import os, sys, autograder, autograder.cli, autograder.commands.grade, autograder.grading.jobs, "
             "autograder.grading.workers, autograder.grading.slurm, autograder.grading.pipeline, "
             "autograder.grading.references, autograder.probe, autograder.sandbox.zygote, autograder.sandbox.launch, "
             "autograder.adapters.autograde, autograder.adapters.gradebook, autograder.probe.kernelinit, "
             "autograder.probe.local_reference; "
             "print(sorted(os.path.relpath(m.__file__, autograder.PACKAGE_DIR).replace(os.sep, '/') "
             "for n, m in list(sys.modules.items()) if n.startswith('autograder.') and getattr(m, '__file__', None)))")
    loaded = set(eval(subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout))
    assert loaded and not (loaded & NOT_GRADING), loaded & NOT_GRADING


def _edit_test_cell(course: Path, gid: str, old: str, new: str, points: float) -> None:
    """The instructor's fix of a visible test in ``solutions/``: its message and its points."""
    sol = course / "solutions" / A / f"{A}.ipynb"
    nb = json.loads(sol.read_text())
    cell = next(c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == gid)
    source = "".join(cell["source"])
    assert old in source
    cell["source"] = source.replace(old, new)
    cell["metadata"]["nbgrader"]["points"] = points
    sol.write_text(json.dumps(nb, indent=1))


def test_a_test_fixed_after_handing_out_accuses_no_one(course):
    """The instructor fixes a visible test's message and points after the class got its copies, releases and
    grades: a test cell as an earlier release handed it out is no edit (the current tests run, as always); a
    test cell a student did edit, or its points, still is, whatever its nbgrader checksum says."""
    import csv

    import nbformat
    from nbgrader.utils import compute_checksum

    _edit_test_cell(course, "ex0_1_tests", '"add_one(0) must be 1"', '"add_one(zeros) must be ones"', 2)
    graded_ok(run(course, "release", A))
    submit(course, "frank", A, RIGHT, when="2026-11-20 10:00:00.000000 UTC")  # handed the fixed copy
    mallory = submit(course, "mallory", A, {**RIGHT, "ex0_1_tests": "assert True"},
                     when="2026-11-20 10:00:00.000000 UTC")
    nb = json.loads(mallory.read_text())  # an edit dressed up with a checksum nbgrader would accept
    for cell in nb["cells"]:
        if cell["metadata"].get("nbgrader", {}).get("grade_id") == "ex0_1_tests":
            cell["metadata"]["nbgrader"]["checksum"] = compute_checksum(nbformat.from_dict(cell))
        if cell["metadata"].get("nbgrader", {}).get("grade_id") == "ex0_2_tests":
            cell["metadata"]["nbgrader"]["points"] = 20
    mallory.write_text(json.dumps(nb))
    out = graded_ok(run(course, "grade", A))
    for student in ("alice", "bob", "carol", "dave", "frank"):
        r = stored(course, A, student)["result"]
        assert r["tampering"] == [], (student, r["tampering"])
    assert stored(course, A, "alice")["result"]["earlier_release"] == ["ex0_1_tests"]
    assert stored(course, A, "frank")["result"]["earlier_release"] == []
    assert sum(e["score"] for e in stored(course, A, "alice")["result"]["exercises"]) == 4  # the current points
    rows = [ln for ln in out.splitlines() if ln.startswith(("alice ", "bob ", "carol ", "dave ", "frank "))]
    assert rows and not any("edited" in ln or "metadata of" in ln for ln in rows), rows
    assert "4 notebook(s) were handed out before a test or locked cell last changed (ex0_1_tests)" in out, out
    tampering = stored(course, A, "mallory")["result"]["tampering"]
    assert "test cell ex0_1_tests was edited (the original tests were run)" in tampering, tampering
    assert any("metadata of ex0_2_tests changed" in t for t in tampering), tampering
    graded_ok(run(course, "export", "--to", "grades.csv"))
    notes = {r["student"]: r["notes"] for r in csv.DictReader(open(course / "grades.csv")) if r["assignment"] == A}
    assert not any("edited" in notes[s] or "metadata of" in notes[s] for s in ("alice", "bob", "carol", "frank"))
    assert "was edited" in notes["mallory"]


def test_a_release_record_from_before_older_releases_were_kept_crashes_nothing(course):
    """A course graded before the grader kept its releases' cells: the record is missing (or damaged), and
    grading goes on as before: a copy of another version of a test cell is noted, nothing stops."""
    record = course / ".autograder" / "released_cells.json"
    assert record.is_file()
    _edit_test_cell(course, "ex0_1_tests", '"add_one(0) must be 1"', '"add_one(zeros) must be ones"', 1)
    graded_ok(run(course, "release", A))
    record.write_text("{not json")
    out = graded_ok(run(course, "grade", A, "--student", "alice"))
    assert "test cell ex0_1_tests was edited" in " ".join(stored(course, A, "alice")["result"]["tampering"]), out
    record.unlink()
    out = graded_ok(run(course, "grade", A, "--student", "alice", "--force"))
    assert sum(e["score"] for e in stored(course, A, "alice")["result"]["exercises"]) == 3


def test_a_trial_seed_keeps_nothing(course):
    """``grade --seed N`` grades one run with N and keeps nothing: no gradebook write, no autograded notebook
    or result, no term seed, and the next plain ``grade`` runs nothing again."""
    kept = [course / "gradebook.db", course / "autograded" / "bob" / A / f"{A}.ipynb",
            course / ".autograder" / "results" / A / "bob" / f"{A}.json", course / ".autograder" / "seeds.json"]
    before = {p: p.read_bytes() for p in kept}
    out = graded_ok(run(course, "grade", A, "--student", "bob", "--seed", "5"))
    assert {p: p.read_bytes() for p in kept} == before, out
    assert "recorded again" not in out and "graded 1 notebook(s)" in out, out
    bob = [ln for ln in out.splitlines() if ln.startswith("bob ")]
    assert bob and " 2/3 " in bob[0], out  # this run's score
    assert "nothing was kept" in out.strip().splitlines()[-1], out
    out = graded_ok(run(course, "grade"))
    assert "5 notebook(s) already graded with the same submission" in out and "graded 0 notebook(s)" in out, out
    # a time given with a trial seed would be kept: one line says to give it in a run of its own
    out = run(course, "grade", A, "--student", "bob", "--seed", "5", "--submitted-at", "2026-11-21 13:00:00 UTC")
    assert out.returncode == 2 and "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert "--seed" in out.stderr
