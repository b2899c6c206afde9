"""A term in one test, against real nbgrader and the real grader, as an instructor and a class live it.

Two assignments: ``00_fixture`` goes out through nbgrader's exchange (students fetch, submit, one
resubmits, one renames her notebook), ``00_second`` comes back as Canvas downloads (collected, then
an older download collected again) with a roster saved by a spreadsheet (a byte-order mark, CRLF).
After the first grading the instructor sets a due date and an extension and fixes a reference that
was wrong; each ``grade`` says what changed and why.  At the end every student's final grade is
checked in the gradebook, the export and the feedback, and no file that a student or an earlier
command produced is gone (each may have moved, never vanished).
"""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import json
import shutil
import time
import zipfile
from pathlib import Path

import attacks
import pytest
from support import LIMITS, fixture_course, run_command, set_answers
from support import COURSE_ID, nbgrader

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("whole-term")]

A, B = attacks.ASSIGNMENT, "00_second"
RIGHT = attacks.answers(attacks.CORRECT_1, attacks.CORRECT_2)
WRONG = attacks.answers(attacks.WRONG_1, attacks.CORRECT_2)
# the grader's products and the instructor's own edits: everything else must survive the term
PRODUCTS = {".autograder", "autograded", "feedback", "reports", "gradebook.db", "grades.csv", "canvas.csv",
            "nbgrader_config.py", "solutions"}


def autograder(course: Path, *args: str):
    out = run_command(list(args), course, env=LIMITS)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert "Traceback" not in out.stderr, out.stderr[-3000:]
    return out.stdout


def changes(out: str) -> list[str]:
    """The change list a ``grade`` printed, one normalised line each."""
    tail = out.split("changes since the last recorded results:\n", 1)[1]
    lines = []
    for line in tail.splitlines():
        if not line.startswith("  "):
            break
        lines.append(" ".join(line.split()))
    return lines


def files(*roots: Path) -> dict[str, str]:
    """Every file a person or an earlier command made under ``roots``: content digest -> a path holding it."""
    found = {}
    for root in roots:
        for p in root.rglob("*"):
            rel = p.relative_to(root).parts
            if p.is_file() and not p.is_symlink() and rel[0] not in PRODUCTS and ".ipynb_checkpoints" not in rel:
                found.setdefault(hashlib.sha256(p.read_bytes()).hexdigest(), str(p))
    return found


def canvas_zip(path: Path, course: Path, entries: dict[str, dict], when: tuple) -> Path:
    release = json.loads((course / "notebooks" / B / f"{B}.ipynb").read_text())
    with zipfile.ZipFile(path, "w") as z:
        for name, answers in entries.items():
            nb = json.loads(json.dumps(release))
            for cell in nb["cells"]:
                gid = cell["metadata"].get("nbgrader", {}).get("grade_id")
                if gid in answers:
                    cell["source"] = answers[gid]
            z.writestr(zipfile.ZipInfo(name, date_time=when), json.dumps(nb))
    return path


def test_a_whole_term(tmp_path):
    course = fixture_course(tmp_path / "course")
    # a second assignment whose reference is wrong where only the hidden test looks (fixed mid-term)
    (course / "solutions" / B).mkdir()
    fixture = (course / "solutions" / A / f"{A}.ipynb").read_text()
    (course / "solutions" / B / f"{B}.ipynb").write_text(
        fixture.replace("return x + 1\\n", "return x + 1 if x.numel() == 2 else x + 2\\n", 1))
    autograder(course, "release", B)
    roster = tmp_path / "roster.csv"
    roster.write_bytes("\ufefflms_id, student_id\r\n101, alice\r\n102, bob\r\n103, carol\r\n104, dave\r\n"
                       .encode("utf-8"))
    seen = files(course, tmp_path / "home")

    # --- 00_fixture through nbgrader's exchange
    exchange = tmp_path / "exchange"
    exchange.mkdir(mode=0o777)
    ex = f"--Exchange.root={exchange}"
    assert nbgrader("release_assignment", A, ex, cwd=course).returncode == 0
    work = {}
    for who in ("alice", "bob", "carol"):
        home = tmp_path / "home" / who
        (home / "work").mkdir(parents=True)
        out = nbgrader("fetch_assignment", A, "--course", COURSE_ID, ex, cwd=home / "work", user=who, home=home)
        assert out.returncode == 0, out.stdout + out.stderr
        work[who] = (home, home / "work" / A / f"{A}.ipynb")

    def submit(who):
        home, nb = work[who]
        out = nbgrader("submit", A, "--course", COURSE_ID, f"--student={who}", ex, cwd=home / "work", user=who,
                       home=home)
        assert out.returncode == 0, out.stdout + out.stderr

    set_answers(work["alice"][1], WRONG)
    submit("alice")
    time.sleep(1.1)
    set_answers(work["alice"][1], RIGHT)  # resubmitted: the newest counts
    submit("alice")
    set_answers(work["bob"][1], WRONG)
    submit("bob")
    set_answers(work["carol"][1], RIGHT)
    work["carol"][1].rename(work["carol"][1].with_name(f"{A} (1).ipynb"))  # a browser's download copy
    submit("carol")
    assert nbgrader("collect", A, ex, cwd=course).returncode == 0
    seen |= files(course, tmp_path / "home")

    # --- 00_second from Canvas: the newer download first, then an older one
    newer = canvas_zip(tmp_path / "newer.zip", course, {f"smithalice_101_9001_{B}.ipynb": RIGHT,
                                                       f"jonesbob_102_9002_{B}.ipynb": RIGHT},
                       (2026, 11, 21, 10, 0, 0))
    older = canvas_zip(tmp_path / "older.zip", course, {f"smithalice_101_8001_{B}.ipynb": WRONG},
                       (2026, 11, 19, 10, 0, 0))
    autograder(course, "collect", str(newer), "--assignment", B, "--roster", str(roster))
    out = autograder(course, "collect", str(older), "--assignment", B, "--roster", str(roster))
    assert "older than the submission already collected" in out, out
    seen |= files(course, tmp_path / "home")

    # --- the first grading
    out = autograder(course, "grade")
    assert changes(out) == ["5 graded for the first time"], out
    scores = attacks.gradebook_scores(course)
    assert scores == {"alice": 3 + 2, "bob": 2 + 2, "carol": 3}, scores  # B's wrong reference costs a point
    assert "graded 00_fixture (1).ipynb as 00_fixture.ipynb (renamed" in out

    # --- a due date and an extension, after grading: re-recorded, nothing run
    due = (dt.datetime.now(dt.timezone.utc) - dt.timedelta(hours=26)).strftime("%Y-%m-%d %H:%M:%S UTC")
    with open(course / "nbgrader_config.py", "a") as f:
        f.write(f'\nc.LatePolicy.due_dates = {{"{A}": "{due}"}}\n'
                f'c.LatePolicy.extensions = {{"{A}": {{"bob": 48}}}}\n')
    out = autograder(course, "grade")
    assert "graded 0 notebook(s)" in out and "reference run" not in out
    assert changes(out) == [  # 26 hours and a little more: two started days, 10% each
        "alice 00_fixture/00_fixture 3/3 -> 2.4/3 (late: -0.6) (new policy (due date))",
        "carol 00_fixture/00_fixture 3/3 -> 2.4/3 (late: -0.6) (new policy (due date))",
        "1 recorded again with the same score (new policy (due date, extension))"], out

    # --- the wrong reference of 00_second is fixed: exactly its notebooks run again
    (course / "solutions" / B / f"{B}.ipynb").write_text(fixture)
    out = autograder(course, "grade")
    assert "graded 2 notebook(s)" in out and "3 notebook(s) already graded" in out
    assert changes(out) == ["alice 00_second/00_second 2/3 -> 3/3 (new tests or reference)",
                            "bob 00_second/00_second 2/3 -> 3/3 (new tests or reference)"], out
    out = autograder(course, "grade")
    assert changes(out) == ["none"]

    # --- what everyone reads: the gradebook, the export, the feedback, the report
    final = {("alice", A): 2.4, ("bob", A): 2.0, ("carol", A): 2.4, ("alice", B): 3.0, ("bob", B): 3.0,
             ("carol", B): 0.0, ("dave", A): 0.0, ("dave", B): 0.0}
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for (who, a), score in final.items():
            if score:
                sub = gb.find_submission(a, who)
                assert sub.score - float(sub.late_submission_penalty or 0) == pytest.approx(score), (who, a)
    autograder(course, "export", "--roster", str(roster), "--to", "grades.csv")
    rows = {(r["student"], r["assignment"]): r for r in csv.DictReader(open(course / "grades.csv"))}
    assert {k: float(r["final_score"]) for k, r in rows.items()} == pytest.approx(final)
    assert rows[("dave", A)]["notes"] == "no submission" and rows[("carol", B)]["notes"] == "no submission"
    assert "renamed" in rows[("carol", A)]["notes"]
    autograder(course, "feedback")
    page = (course / "feedback" / "alice" / A / f"{A}.html").read_text()
    assert "Late penalty" in page and "2.4" in page and "hidden_test(" not in page
    autograder(course, "report")
    assert (course / "reports" / f"{A}.html").is_file()

    # --- nothing a student or an earlier command produced is lost
    now = files(course, tmp_path / "home")
    lost = {digest: path for digest, path in seen.items() if digest not in now}
    assert not lost, lost
    shutil.rmtree(exchange, ignore_errors=True)
