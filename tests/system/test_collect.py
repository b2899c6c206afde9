"""Collecting an LMS bulk download into nbgrader's submitted/ layout, with nbgrader's zip_collect.

The downloads are built here as the LMSs name them: Canvas (with a late file and a resubmission),
Moodle (a folder per learner) and Blackboard (attempt times).  Unknown names, ids missing from
the roster, other notebooks, non-notebooks and older duplicates are kept aside and listed.  A
renamed copy of the notebook (``01_tensors (1).ipynb``) is taken by its cells, under the notebook's
own name, and a collected file that does not read as a notebook is named in a WARNING line.
A collect is all or nothing: whatever fails (the roster, the archive, nbgrader's zip_collect, a
folder in the way half-way through the moves), the course is left exactly as it was.  Across
downloads the newest submission wins, and what is replaced or not taken is kept and listed.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from support import run_cli

from autograder.adapters import times

A = "01_tensors"
NB = "01_tensors"


def notebook(course_dir, marker: str) -> str:
    nb = json.loads((course_dir / "notebooks" / A / f"{NB}.ipynb").read_text())
    nb["cells"].append({"cell_type": "markdown", "metadata": {}, "source": marker})
    return json.dumps(nb)


def build_zip(path, files: dict[str, str], when=(2026, 11, 20, 12, 0, 0)):
    with zipfile.ZipFile(path, "w") as z:
        for name, text in files.items():
            info = zipfile.ZipInfo(name, date_time=when)
            z.writestr(info, text)
    return path


def collect(course_dir, *args):
    return run_cli(["collect", *args, "--assignment", A], course_dir)


@pytest.mark.slow
def test_canvas_download_with_roster(course_dir, tmp_path):
    files = {
        f"smithjane_101_9001_{NB}.ipynb": notebook(course_dir, "jane first"),
        f"smithjane_101_9002_{NB}-1.ipynb": notebook(course_dir, "jane resubmitted"),
        f"doejohn_LATE_102_9003_{NB}.ipynb": notebook(course_dir, "john late"),
        f"nobody_999_9004_{NB}.ipynb": notebook(course_dir, "not in the roster"),
        "roejo_103_9005_02_autograd.ipynb": other_notebook(course_dir, "02_autograd", "wrong notebook"),
        "smithjane_101_9006_notes.pdf": "%PDF-1.4",
        "readme_from_the_lms.txt": "hello",
        "my homework.ipynb": notebook(course_dir, "no id in the name"),
    }
    dl = build_zip(tmp_path / "canvas.zip", files)
    (tmp_path / "roster.csv").write_text("lms_id,student_id\n101,jane\n102,john\n103,jo\n")
    out = collect(course_dir, str(dl), "--roster", str(tmp_path / "roster.csv"))
    assert out.returncode == 0, out.stdout + out.stderr
    sub = course_dir / "submitted"
    assert sorted(p.name for p in sub.iterdir()) == ["jane", "john"]
    assert "jane resubmitted" in (sub / "jane" / A / f"{NB}.ipynb").read_text()  # the newest counts
    assert "john late" in (sub / "john" / A / f"{NB}.ipynb").read_text()
    assert times.submission_time(course_dir, A, "jane", sub / "jane" / A)[0].startswith("2026-11-20 12:00:00")
    aside = course_dir / "downloaded" / A / "kept-aside"
    kept = {p.name for p in aside.rglob("*") if p.is_file()}
    assert {f"nobody_999_9004_{NB}.ipynb", "roejo_103_9005_02_autograd.ipynb", "smithjane_101_9006_notes.pdf",
            "readme_from_the_lms.txt", f"smithjane_101_9001_{NB}.ipynb", "my homework.ipynb"} <= kept
    for reason in ("not in the roster", "no notebook of this assignment is named 02_autograd", "not a notebook",
                   "no known LMS pattern", "older submission"):
        assert reason in out.stdout, (reason, out.stdout)


@pytest.mark.slow
def test_moodle_and_blackboard_downloads(course_dir, tmp_path):
    moodle = build_zip(tmp_path / "moodle.zip", {
        f"Ann Lee_2001_assignsubmission_file_/{NB}.ipynb": notebook(course_dir, "ann"),
        f"Bo Chan_2002_assignsubmission_file_/{NB}.ipynb": notebook(course_dir, "bo"),
    })
    out = collect(course_dir, str(moodle))
    assert out.returncode == 0, out.stdout + out.stderr
    assert {p.name for p in (course_dir / "submitted").iterdir()} == {"2001", "2002"}
    bb = build_zip(tmp_path / "bb.zip", {
        f"Tensors_cara_attempt_2026-11-19-08-00-00_{NB}.ipynb": notebook(course_dir, "cara early"),
        f"Tensors_cara_attempt_2026-11-21-09-30-00_{NB}.ipynb": notebook(course_dir, "cara later"),
    })
    out = collect(course_dir, str(bb))
    assert out.returncode == 0, out.stdout + out.stderr
    cara = course_dir / "submitted" / "cara" / A
    assert "cara later" in (cara / f"{NB}.ipynb").read_text()
    assert times.submission_time(course_dir, A, "cara", cara) == ("2026-11-21 09:30:00.000000 UTC", times.COLLECTOR)
    assert (course_dir / "submitted" / "2001").is_dir()  # the earlier collection is still there


def test_a_broken_download_changes_nothing(course_dir, tmp_path):
    good = build_zip(tmp_path / "good.zip", {f"Ann Lee_2001_assignsubmission_file_/{NB}.ipynb": notebook(course_dir, "ann")})
    assert collect(course_dir, str(good)).returncode == 0
    before = sorted(str(p) for p in (course_dir / "submitted").rglob("*"))
    (tmp_path / "bad.zip").write_bytes(good.read_bytes()[: len(good.read_bytes()) // 2])
    (tmp_path / "notes.ipynb").write_text("{}")
    for bad in ("bad.zip", "notes.ipynb", "missing.zip"):
        out = collect(course_dir, str(tmp_path / bad))
        assert out.returncode == 2 and "nothing collected" in out.stderr, out.stderr
    assert sorted(str(p) for p in (course_dir / "submitted").rglob("*")) == before


def snapshot(course_dir) -> dict:
    """Every folder and file of the course, with the files' bytes."""
    return {str(p.relative_to(course_dir)): (p.read_bytes() if p.is_file() else None)
            for p in sorted(Path(course_dir).rglob("*"))}


def moodle(course_dir, path, students: dict[str, str], when, extra: dict[str, str] | None = None):
    """A Moodle download: a folder per learner (``students``: LMS id -> the marker in the notebook)."""
    files = {f"Learner {i}_{i}_assignsubmission_file_/{NB}.ipynb": notebook(course_dir, marker)
             for i, marker in students.items()}
    return build_zip(path, files | (extra or {}), when=when)


@pytest.mark.slow
def test_a_failed_collect_leaves_the_course_as_it_was(course_dir, tmp_path):
    first = moodle(course_dir, tmp_path / "first.zip", {"2001": "ann first"}, (2026, 11, 20, 12, 0, 0),
                   extra={"readme_from_the_lms.txt": "hello"})
    assert collect(course_dir, str(first)).returncode == 0
    (course_dir / "submitted" / "2009").write_text("a file where a student's folder would go")
    before = snapshot(course_dir)
    assert any("kept-aside" in p and p.endswith("readme_from_the_lms.txt") for p in before)
    assert any(p.endswith("collect-report.json") for p in before)
    newer = {"2001": "ann newer", "2002": "bo"}

    # a roster that cannot be read
    (tmp_path / "roster.csv").write_text("Name,Email\nAnn,ann@example.org\n")
    out = collect(course_dir, str(moodle(course_dir, tmp_path / "a.zip", newer, (2026, 11, 21, 12, 0, 0))),
                  "--roster", str(tmp_path / "roster.csv"))
    assert out.returncode == 2 and "found: Name, Email" in out.stderr, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert snapshot(course_dir) == before

    # nbgrader's zip_collect fails half-way through extracting (a name longer than the file system allows)
    out = collect(course_dir, str(moodle(course_dir, tmp_path / "b.zip", newer, (2026, 11, 21, 12, 0, 0),
                                         extra={"x" * 300 + ".txt": "too long a name"})))
    assert out.returncode == 1 and "nbgrader zip_collect failed" in out.stderr, out.stderr
    assert snapshot(course_dir) == before

    # the moves into submitted/ fail half-way: ann's newer submission was already in place, then 2009's is blocked
    out = collect(course_dir, str(moodle(course_dir, tmp_path / "c.zip", newer | {"2009": "blocked"},
                                         (2026, 11, 21, 12, 0, 0))))
    assert out.returncode == 1 and "nothing collected, the course is as it was" in out.stderr, out.stderr
    assert snapshot(course_dir) == before


def test_unknown_assignment_is_one_line(course_dir, tmp_path):
    dl = moodle(course_dir, tmp_path / "dl.zip", {"2001": "ann"}, (2026, 11, 20, 12, 0, 0))
    out = run_cli(["collect", str(dl), "--assignment", "01_tensor"], course_dir)
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert "no assignment named 01_tensor " in out.stderr and "01_tensors" in out.stderr.split("are")[1]
    assert not (course_dir / "submitted").exists() and not (course_dir / "downloaded").exists()


@pytest.mark.slow
def test_the_newest_submission_wins_across_downloads(course_dir, tmp_path):
    sub = course_dir / "submitted"
    newer = moodle(course_dir, tmp_path / "newer.zip", {"2001": "ann on the 21st"}, (2026, 11, 21, 12, 0, 0))
    assert collect(course_dir, str(newer)).returncode == 0
    older = moodle(course_dir, tmp_path / "older.zip", {"2001": "ann on the 20th", "2002": "bo on the 20th"},
                   (2026, 11, 20, 12, 0, 0))
    out = collect(course_dir, str(older))
    assert out.returncode == 0, out.stderr
    assert "ann on the 21st" in (sub / "2001" / A / f"{NB}.ipynb").read_text()  # not replaced by the older one
    assert times.submission_time(course_dir, A, "2001", sub / "2001" / A)[0].startswith("2026-11-21 12:00:00")
    assert "bo on the 20th" in (sub / "2002" / A / f"{NB}.ipynb").read_text()
    assert "older than the submission already collected on 2026-11-21 12:00:00" in out.stdout, out.stdout
    aside = course_dir / "downloaded" / A / "kept-aside"
    (older_dir,) = aside.glob("older-*")
    report = json.loads((older_dir / "collect-report.json").read_text())
    (row,) = [r for r in report["files"] if r.get("student") == "2001"]
    assert row["kept_aside"].startswith("older than the submission already collected on 2026-11-21")
    assert "ann on the 20th" in (course_dir / row["kept_in"] / f"{NB}.ipynb").read_text()  # kept, not lost

    newest = moodle(course_dir, tmp_path / "newest.zip", {"2001": "ann on the 22nd"}, (2026, 11, 22, 12, 0, 0))
    out = collect(course_dir, str(newest))
    assert out.returncode == 0, out.stderr
    assert "ann on the 22nd" in (sub / "2001" / A / f"{NB}.ipynb").read_text()
    (newest_dir,) = aside.glob("newest-*")
    report = json.loads((newest_dir / "collect-report.json").read_text())
    (replaced,) = report["replaced"]
    assert replaced["student"] == "2001" and replaced["collected_at"].startswith("2026-11-21 12:00:00")
    kept = course_dir / replaced["kept_in"]
    assert "ann on the 21st" in (kept / f"{NB}.ipynb").read_text()  # the replaced submission is kept
    # every collect keeps its own folder and report
    assert sorted(p.name.split("-")[0] for p in aside.iterdir()) == ["newer", "newest", "older"]
    assert all((p / "collect-report.json").is_file() for p in aside.iterdir())


@pytest.mark.slow
def test_a_download_is_kept_once(course_dir, tmp_path):
    """The same download collected again takes nothing and keeps no second copy of it, nor of the submissions it
    holds; an older download that takes nothing is not kept either (what it held is kept aside, with why)."""
    first = moodle(course_dir, tmp_path / "first.zip", {"2001": "ann", "2002": "bo"}, (2026, 11, 21, 12, 0, 0))
    assert collect(course_dir, str(first)).returncode == 0
    archive, aside = course_dir / "downloaded" / A / "archive", course_dir / "downloaded" / A / "kept-aside"
    (kept,) = archive.glob("*.zip")
    again = collect(course_dir, str(first))
    assert again.returncode == 0, again.stderr
    assert list(archive.glob("*.zip")) == [kept], sorted(archive.iterdir())
    assert f"the download is the one already kept as downloaded/{A}/archive/{kept.name}: not kept again" in again.stdout
    assert "the same as the submission already collected" in again.stdout
    assert not list(aside.glob("*/not-taken")), sorted(p.relative_to(aside) for p in aside.rglob("*"))
    reports = [json.loads((d / "collect-report.json").read_text()) for d in aside.glob("first-*")]
    (report,) = [r for r in reports if not r["taken"]]
    assert report["archive"] == f"downloaded/{A}/archive/{kept.name}" and report["taken"] == []
    assert {r["kept_in"] for r in report["files"]} == {f"submitted/2001/{A}", f"submitted/2002/{A}"}

    older = moodle(course_dir, tmp_path / "older.zip", {"2001": "ann before"}, (2026, 11, 20, 12, 0, 0))
    out = collect(course_dir, str(older))
    assert out.returncode == 0, out.stderr
    assert list(archive.glob("*.zip")) == [kept] and "the download is not kept: nothing was collected" in out.stdout
    (row,) = [r for d in aside.glob("older-*") for r in json.loads((d / "collect-report.json").read_text())["files"]]
    assert "ann before" in (course_dir / row["kept_in"] / f"{NB}.ipynb").read_text()  # kept aside, not lost


@pytest.mark.slow
def test_canvas_gradebook_export_as_the_roster(course_dir, tmp_path):
    from test_roster_export import CANVAS_EXPORT

    (tmp_path / "canvas.csv").write_bytes(("\ufeff" + CANVAS_EXPORT).encode("utf-8"))
    dl = build_zip(tmp_path / "canvas.zip", {f"smithjane_101_9001_{NB}.ipynb": notebook(course_dir, "jane"),
                                             f"doejohn_102_9002_{NB}.ipynb": notebook(course_dir, "john"),
                                             f"teststudent_999_9003_{NB}.ipynb": notebook(course_dir, "test")})
    out = collect(course_dir, str(dl), "--roster", str(tmp_path / "canvas.csv"))
    assert out.returncode == 0, out.stderr
    assert sorted(p.name for p in (course_dir / "submitted").iterdir()) == ["jdoe", "jsmith"]
    assert "LMS id 999 is not in the roster" in out.stdout


def other_notebook(course_dir, assignment: str, marker: str) -> str:
    """Another assignment's notebook, as a learner would hand it in by mistake."""
    nb = json.loads((course_dir / "notebooks" / assignment / f"{assignment}.ipynb").read_text())
    nb["cells"].append({"cell_type": "markdown", "metadata": {}, "source": marker})
    return json.dumps(nb)


def report_of(course_dir, stem: str) -> dict:
    (folder,) = (course_dir / "downloaded" / A / "kept-aside").glob(f"{stem}-*")
    return json.loads((folder / "collect-report.json").read_text())


@pytest.mark.slow
def test_a_renamed_notebook_is_taken_by_its_cells(course_dir, tmp_path):
    dl = build_zip(tmp_path / "canvas1.zip", {
        f"kimdave_104_9004_{NB} (1).ipynb": notebook(course_dir, "dave renamed"),
        f"leeann_105_9005_{NB}-Copy1.ipynb": notebook(course_dir, "ann copy"),
        "parkmin_106_9006_01_Tensors.ipynb": notebook(course_dir, "min other case"),
        f"smithjane_101_9001_{NB}.ipynb": notebook(course_dir, "jane first"),
        f"smithjane_101_9002_{NB} (1).ipynb": notebook(course_dir, "jane later, renamed"),
        f"roejo_103_9007_{NB} (2).ipynb": other_notebook(course_dir, "02_autograd", "jo's other notebook"),
        "roejo_103_9008_02_autograd.ipynb": other_notebook(course_dir, "02_autograd", "jo's other notebook again"),
    })
    (tmp_path / "roster.csv").write_text("lms_id,student_id\n101,jane\n103,jo\n104,dave\n105,ann\n106,min\n")
    out = collect(course_dir, str(dl), "--roster", str(tmp_path / "roster.csv"))
    assert out.returncode == 0, out.stdout + out.stderr
    sub = course_dir / "submitted"
    assert sorted(p.name for p in sub.iterdir()) == ["ann", "dave", "jane", "min"]
    for student, marker in [("dave", "dave renamed"), ("ann", "ann copy"), ("min", "min other case"),
                            ("jane", "jane later, renamed")]:  # stored under the notebook's own name
        assert [p.name for p in (sub / student / A).glob("*.ipynb")] == [f"{NB}.ipynb"], student
        assert marker in (sub / student / A / f"{NB}.ipynb").read_text()
    assert f"{dl.stem}/kimdave_104_9004_{NB} (1).ipynb: taken as dave's {NB}.ipynb (renamed; recognised by its cells)" \
        in out.stdout, out.stdout
    assert "no notebook of this assignment is named 01_tensors (1)" not in out.stdout
    # the newest counts, renamed or not; a file with another notebook's cells stays aside
    assert f"smithjane_101_9001_{NB}.ipynb: an older submission of the same notebook" in out.stdout, out.stdout
    assert f"roejo_103_9007_{NB} (2).ipynb: no notebook of this assignment is named {NB} (2), and its cells are " \
        "not those of one of its notebooks" in out.stdout, out.stdout
    assert "roejo_103_9008_02_autograd.ipynb: no notebook of this assignment is named 02_autograd" in out.stdout
    rows = {r["file"].split("/", 1)[1]: r for r in report_of(course_dir, dl.stem)["files"]}
    dave = rows[f"kimdave_104_9004_{NB} (1).ipynb"]
    assert dave["student"] == "dave" and dave["notebook"] == NB and dave["renamed"] == f"{NB} (1)"
    assert "kept_aside" not in dave
    assert "kept_aside" in rows[f"roejo_103_9007_{NB} (2).ipynb"]
    assert "renamed" not in rows[f"smithjane_101_9001_{NB}.ipynb"]


@pytest.mark.slow
def test_renamed_notebooks_in_moodle_and_blackboard_downloads(course_dir, tmp_path):
    moodle = build_zip(tmp_path / "moodle.zip", {
        f"Ann Lee_2001_assignsubmission_file_/{NB} (1).ipynb": notebook(course_dir, "ann renamed"),
        # two files of one notebook in one submission: the one named after the notebook counts
        f"Bo Chan_2002_assignsubmission_file_/{NB}-Copy1.ipynb": notebook(course_dir, "bo copy"),
        f"Bo Chan_2002_assignsubmission_file_/{NB}.ipynb": notebook(course_dir, "bo named"),
    })
    out = collect(course_dir, str(moodle))
    assert out.returncode == 0, out.stdout + out.stderr
    sub = course_dir / "submitted"
    assert "ann renamed" in (sub / "2001" / A / f"{NB}.ipynb").read_text()
    assert "bo named" in (sub / "2002" / A / f"{NB}.ipynb").read_text()
    assert [p.name for p in (sub / "2002" / A).glob("*.ipynb")] == [f"{NB}.ipynb"]
    assert f"{NB}-Copy1.ipynb: another file of {NB}.ipynb in the same submission is taken" in out.stdout, out.stdout
    assert f"{NB} (1).ipynb: taken as 2001's {NB}.ipynb (renamed; recognised by its cells)" in out.stdout

    bb = build_zip(tmp_path / "bb.zip", {
        f"Tensors_cara_attempt_2026-11-19-08-00-00_{NB}.ipynb": notebook(course_dir, "cara early"),
        f"Tensors_cara_attempt_2026-11-21-09-30-00_{NB} (1).ipynb": notebook(course_dir, "cara later, renamed"),
    })
    out = collect(course_dir, str(bb))
    assert out.returncode == 0, out.stdout + out.stderr
    cara = sub / "cara" / A
    assert "cara later, renamed" in (cara / f"{NB}.ipynb").read_text()
    assert times.submission_time(course_dir, A, "cara", cara) == ("2026-11-21 09:30:00.000000 UTC", times.COLLECTOR)
    assert "an older submission of the same notebook" in out.stdout, out.stdout


@pytest.mark.slow
def test_a_collected_file_that_is_no_notebook_is_named(course_dir, tmp_path):
    sub = course_dir / "submitted"
    good = moodle(course_dir, tmp_path / "good.zip", {"2001": "ann good"}, (2026, 11, 20, 12, 0, 0))
    assert collect(course_dir, str(good)).returncode == 0
    broken = build_zip(tmp_path / "broken.zip", {
        f"Learner 2001_2001_assignsubmission_file_/{NB}.ipynb": '{"cells": [',  # cut short
        f"Learner 2002_2002_assignsubmission_file_/{NB}.ipynb": '{"a": 1}',  # JSON, but no notebook
        f"Learner 2003_2003_assignsubmission_file_/{NB}.ipynb": notebook(course_dir, "cy"),
        f"Learner 2004_2004_assignsubmission_file_/{NB} (1).ipynb": "not json",  # renamed, and unreadable
    }, when=(2026, 11, 21, 12, 0, 0))
    out = collect(course_dir, str(broken))
    assert out.returncode == 0, out.stdout + out.stderr
    # the newest submission still wins, and the instructor is told, one line per file
    assert (sub / "2001" / A / f"{NB}.ipynb").read_text() == '{"cells": ['
    warnings = [line for line in out.stdout.splitlines() if line.startswith("WARNING") and "does not read" in line]
    assert len(warnings) == 2, out.stdout
    assert warnings[0].startswith(f"WARNING: broken/Learner 2001_2001_assignsubmission_file_/{NB}.ipynb does not "
                                  "read as a notebook (it could not be read"), warnings
    assert f"the submission it replaced is kept in downloaded/{A}/kept-aside/broken-" in warnings[0], warnings
    assert warnings[1].startswith(f"WARNING: broken/Learner 2002_2002_assignsubmission_file_/{NB}.ipynb does not "
                                  "read as a notebook"), warnings
    assert "replaced" not in warnings[1]
    assert f"{NB} (1).ipynb: no notebook of this assignment is named {NB} (1), and it does not read as a " \
        "notebook: it could not be read" in out.stdout, out.stdout
    report = report_of(course_dir, "broken")
    rows = {r.get("student"): r for r in report["files"]}
    assert rows["2001"]["unreadable"].startswith("could not be read") and "kept_aside" not in rows["2001"]
    assert "unreadable" in rows["2002"] and "unreadable" not in rows["2003"]
    (replaced,) = report["replaced"]
    assert "ann good" in (course_dir / replaced["kept_in"] / f"{NB}.ipynb").read_text()  # kept, not lost


def test_canvas_submission_ids_order_as_numbers():
    from autograder.adapters.lms import parse

    older, newer = (parse(f"smithalice_101_{sub}_01_tensors.ipynb", "canvas") for sub in ("9004", "10001"))
    assert newer["order"] > older["order"]
    assert parse("smithalice_101_9004_01_tensors-1.ipynb", "canvas")["order"] > newer["order"]  # a resubmission
