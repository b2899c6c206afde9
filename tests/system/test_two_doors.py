"""One course, two front doors: what the formgrader's buttons run (nbgrader's own commands and its API, with the
course's ``nbgrader_config.py``) and what the command line runs keep the same files and show the same grades.

Each test goes through nbgrader's own entry points (``nbgrader generate_assignment``, ``NbGraderAPI``, the
formgrader's handlers' calls), never around them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import attacks
import pytest
from support import fixture_course, nbgrader, run_cli, set_answers, tool_env

pytestmark = pytest.mark.slow

A = attacks.ASSIGNMENT

# NbGraderAPI as the formgrader makes it (nbgrader.server_extensions.formgrader.base), in the course's folder
_API = """
import json, sys
from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader
from nbgrader.apps import NbGraderAPI
from nbgrader.coursedir import CourseDirectory

config = Config()
config.merge(PyFileConfigLoader("nbgrader_config.py", path=".").load_config())
api = NbGraderAPI(coursedir=CourseDirectory(config=config), config=config)
call, *args = sys.argv[1:]
print(json.dumps(getattr(api, call)(*args), default=str))
"""


def api(course: Path, call: str, *args: str):
    """One call of nbgrader's ``NbGraderAPI`` (what the formgrader's buttons and pages call), as JSON."""
    out = subprocess.run([sys.executable, "-c", _API, call, *args], cwd=course, env=tool_env(), capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_generate_keeps_what_release_keeps(tmp_path):
    """A learner works in notebooks/ in place; ``autograder release`` keeps their notebook aside as a .mine copy.
    The formgrader's Generate and ``nbgrader generate_assignment`` then write the release again: the kept
    copy, the learner's own file and their newer edits all stay (the edits kept aside the same way), and the
    release they write is the one ``autograder release`` writes, which then has nothing to change."""
    course = fixture_course(tmp_path / "course")
    folder = course / "notebooks" / A
    nb = folder / f"{A}.ipynb"
    set_answers(nb, attacks.answers(attacks.CORRECT_1))
    out = run_cli(["release"], course)
    assert out.returncode == 0 and "kept your" in out.stdout, out.stdout + out.stderr
    (kept,) = folder.glob(f"{A}.mine-*.ipynb")
    (folder / "my_notes.txt").write_text("what I learnt\n")
    set_answers(nb, attacks.answers(attacks.WRONG_1))  # working on in the fresh copy
    before = _files(folder)

    gen = nbgrader("generate_assignment", A, "--force", cwd=course)
    assert gen.returncode == 0, gen.stdout + gen.stderr
    after = _files(folder)
    assert after[kept.name] == before[kept.name] and after["my_notes.txt"] == before["my_notes.txt"]
    (newly,) = set(after) - set(before)
    assert newly.startswith(f"{A}.mine-") and after[newly] == before[f"{A}.ipynb"], sorted(after)
    assert f"kept your notebooks/{A}/{A}.ipynb as notebooks/{A}/{newly}" in gen.stderr, gen.stderr

    set_answers(nb, attacks.answers(attacks.WRONG_1))
    edited = nb.read_bytes()
    result = api(course, "generate_assignment", A)  # the formgrader's Generate
    assert result["success"], result
    third = _files(folder)
    assert {k: v for k, v in third.items() if k in after and k != f"{A}.ipynb"} == \
        {k: v for k, v in after.items() if k != f"{A}.ipynb"}
    assert edited in [v for k, v in third.items() if k not in after], sorted(third)

    fresh = nb.read_bytes()
    again = run_cli(["release"], course)
    assert again.returncode == 0 and "kept your" not in again.stdout, again.stdout + again.stderr
    assert nb.read_bytes() == fresh and _files(folder) == third


def _canvas_download(course: Path, path: Path, answers: dict[str, dict], when=(2026, 11, 20, 12, 0, 0)) -> Path:
    """A Canvas bulk download: one file per learner (``lastfirst_USERID_SUBMISSIONID_NOTEBOOK.ipynb``)."""
    import zipfile

    release = json.loads((course / "notebooks" / A / f"{A}.ipynb").read_text())
    with zipfile.ZipFile(path, "w") as z:
        for n, (lms_id, sources) in enumerate(answers.items()):
            nb = json.loads(json.dumps(release))
            for cell in nb["cells"]:
                gid = cell["metadata"].get("nbgrader", {}).get("grade_id")
                if gid in sources:
                    cell["source"] = sources[gid]
            z.writestr(zipfile.ZipInfo(f"student{lms_id}_{lms_id}_{9000 + n}_{A}.ipynb", date_time=when), json.dumps(nb))
    return path


def test_the_formgrader_shows_what_grade_recorded(tmp_path):
    """Two students come in through an LMS download (their times are the LMS's, kept outside their folders), one
    through nbgrader's exchange layout (its timestamp.txt), and the instructor gives one of the LMS students'
    time by hand.  After ``autograder grade``, the formgrader's lists (NbGraderAPI.get_submissions and
    get_submission) call every one of them autograded, with the score and the time ``grade`` recorded; a
    submission replaced by hand afterwards is judged by the time it carries again, on both sides."""
    from nbgrader.utils import parse_utc
    from support import grade

    from autograder.grading.store import ResultStore

    course = fixture_course(tmp_path / "course")
    download = _canvas_download(course, tmp_path / "canvas.zip", {
        "101": attacks.answers(attacks.CORRECT_1, attacks.CORRECT_2), "102": attacks.answers(attacks.WRONG_1)})
    (tmp_path / "roster.csv").write_text("lms_id,student_id\n101,jane\n102,john\n")
    out = run_cli(["collect", str(download), "--assignment", A, "--roster", str(tmp_path / "roster.csv")], course)
    assert out.returncode == 0, out.stdout + out.stderr
    ann = course / "submitted" / "ann" / A
    ann.mkdir(parents=True)
    nb = ann / f"{A}.ipynb"
    nb.write_bytes((course / "notebooks" / A / f"{A}.ipynb").read_bytes())
    set_answers(nb, attacks.answers(attacks.CORRECT_1))
    (ann / "timestamp.txt").write_text("2026-11-19 08:00:00.000000 UTC")

    out = grade(course, "--workers", "2")
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    out = grade(course, "--student", "john", "--submitted-at", "2026-11-21 09:30:00 UTC")
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]

    def both_doors_agree(students: set[str]) -> None:
        store = ResultStore(course)
        listed = {s["student"]: s for s in api(course, "get_submissions", A)}
        assert set(listed) == students, listed
        for student, shown in listed.items():
            r = store.get(A, student, A)
            when = r.submitted_at if r.submitted_at_source in ("collector", "instructor (--submitted-at)",
                                                               "nbgrader's timestamp.txt") else None
            assert shown["autograded"] and not shown.get("needs_autograding"), (student, shown)
            assert shown["score"] == r.score, (student, shown, r.score)
            assert shown["timestamp"] == (parse_utc(when).isoformat() if when else None), (student, shown, when)
            assert api(course, "get_submission", A, student)["timestamp"] == shown["timestamp"]

    both_doors_agree({"jane", "john", "ann"})
    assert ResultStore(course).get(A, "jane", A).submitted_at_source == "collector"
    assert ResultStore(course).get(A, "john", A).submitted_at.startswith("2026-11-21 09:30:00")
    assert (ann / "timestamp.txt").read_text() == "2026-11-19 08:00:00.000000 UTC"

    # jane's notebook replaced by hand: the LMS's time no longer vouches for it, and neither door shows it
    jane = course / "submitted" / "jane" / A / f"{A}.ipynb"
    set_answers(jane, attacks.answers(attacks.WRONG_1))
    out = grade(course)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert ResultStore(course).get(A, "jane", A).submitted_at_source == "file time in the submissions folder"
    both_doors_agree({"jane", "john", "ann"})


def test_feedback_pages_have_one_rule_whichever_door_writes_them(tmp_path):
    """The formgrader's Generate Feedback (nbgrader's generate_feedback, with the course's steps) and
    ``autograder feedback`` write the same pages: each replaces the other's without a copy, and a page a person
    left in the student's feedback folder is kept aside by either, and said."""
    from support import grade

    course = fixture_course(tmp_path / "course")
    sub = course / "submitted" / "ann" / A
    sub.mkdir(parents=True)
    (sub / f"{A}.ipynb").write_bytes((course / "notebooks" / A / f"{A}.ipynb").read_bytes())
    set_answers(sub / f"{A}.ipynb", attacks.answers(attacks.CORRECT_1))
    out = grade(course)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    folder, kept = course / "feedback" / "ann" / A, course / ".autograder" / "kept"

    def feedback() -> str:
        out = run_cli(["feedback"], course)
        assert out.returncode == 0, out.stdout + out.stderr
        return out.stdout

    result = api(course, "generate_feedback", A)  # the formgrader's Generate Feedback
    assert result["success"] and (folder / f"{A}.html").is_file(), result
    assert "held a file this course had not written" not in feedback() and not kept.exists()
    result = api(course, "generate_feedback", A)
    assert result["success"] and "held a file" not in result.get("log", ""), result
    assert not kept.exists()

    (folder / "notes.html").write_text("<p>ann: see me about exercise 2</p>")
    result = api(course, "generate_feedback", A)
    assert result["success"], result
    (mine,) = (kept / "feedback" / "ann" / A).glob("notes.mine-*.html")
    assert mine.read_text() == "<p>ann: see me about exercise 2</p>" and "notes.html held a file" in result["log"]
    page = folder / f"{A}.html"
    page.write_text(page.read_text() + "<p>a word of mine</p>")  # a person edits the page nbgrader wrote
    assert "held a file this course had not written there" in feedback()
    (edited,) = (kept / "feedback" / "ann" / A).glob(f"{A}.mine-*.html")
    assert "a word of mine" in edited.read_text() and "a word of mine" not in page.read_text()


def test_the_formgraders_release_hands_out_the_release_alone(tmp_path):
    """A learner's copies kept aside in notebooks/ (by ``autograder release`` or the formgrader's Generate) and a
    notebook of their own there are theirs: the formgrader's Release (nbgrader's ``release_assignment``) hands
    the class the assignment's own notebook alone."""
    course = fixture_course(tmp_path / "course")
    folder = course / "notebooks" / A
    set_answers(folder / f"{A}.ipynb", attacks.answers(attacks.CORRECT_1, attacks.CORRECT_2))  # answers written in
    out = run_cli(["release"], course)
    assert out.returncode == 0 and "kept your" in out.stdout, out.stdout + out.stderr
    (folder / "scratch.ipynb").write_bytes((folder / f"{A}.ipynb").read_bytes())
    exchange = tmp_path / "exchange"
    exchange.mkdir(mode=0o777)
    out = nbgrader("release_assignment", A, f"--Exchange.root={exchange}", cwd=course)
    assert out.returncode == 0, out.stdout + out.stderr
    handed = exchange / "pytorch-course" / "outbound" / A
    assert sorted(p.name for p in handed.iterdir() if p.is_file()) == [f"{A}.ipynb"], sorted(handed.rglob("*"))
    assert "return x * 2" not in (handed / f"{A}.ipynb").read_text()  # none of the answers written in


def test_a_time_recorded_before_timestamp_txt_was_written_reaches_the_formgrader(tmp_path):
    """A collector's record kept by an earlier version of the course (in .autograder/times/ alone, as before
    records wrote nbgrader's timestamp.txt): the next grade writes it where nbgrader reads it, and the formgrader
    lists the student as autograded, at that time."""
    from support import grade

    from autograder.adapters import times

    course = fixture_course(tmp_path / "course")
    folder = course / "submitted" / "ann" / A
    folder.mkdir(parents=True)
    (folder / f"{A}.ipynb").write_bytes((course / "notebooks" / A / f"{A}.ipynb").read_bytes())
    path = course / ".autograder" / "times" / A / "ann.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"time": "2026-11-20 12:00:00.000000 UTC", "source": times.COLLECTOR,
                                "notebooks": times._notebooks(folder)}))
    out = grade(course)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    (shown,) = api(course, "get_submissions", A)
    assert shown["autograded"] and shown["timestamp"] == "2026-11-20T12:00:00", shown
