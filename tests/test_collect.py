"""Collecting an LMS bulk download into nbgrader's submitted/ layout, with nbgrader's zip_collect.

The downloads are built here as the LMSs name them: Canvas (with a late file and a resubmission),
Moodle (a folder per learner) and Blackboard (attempt times).  Unknown names, ids missing from
the roster, other notebooks' names, non-notebooks and older duplicates are kept aside and listed.
"""

from __future__ import annotations

import json
import sys
import zipfile

import pytest

from autograder.submission import COLLECTED_AT
from support import run_tool

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
    return run_tool([sys.executable, "-m", "autograder", "collect", *args, "--assignment", A], course_dir)


@pytest.mark.slow
def test_canvas_download_with_roster(course_dir, tmp_path):
    files = {
        f"smithjane_101_9001_{NB}.ipynb": notebook(course_dir, "jane first"),
        f"smithjane_101_9002_{NB}-1.ipynb": notebook(course_dir, "jane resubmitted"),
        f"doejohn_LATE_102_9003_{NB}.ipynb": notebook(course_dir, "john late"),
        f"nobody_999_9004_{NB}.ipynb": notebook(course_dir, "not in the roster"),
        "roejo_103_9005_02_autograd.ipynb": notebook(course_dir, "wrong notebook"),
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
    assert (sub / "jane" / A / COLLECTED_AT).read_text().startswith("2026-11-20 12:00:00")
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
    assert (cara / COLLECTED_AT).read_text().startswith("2026-11-21 09:30:00")
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
