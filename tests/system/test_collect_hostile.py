"""Hostile LMS downloads: a learner naming a file after another learner, ids that are not plain
names, archive modes, and downloads that unpack to far more than they are.

A learner submits only for themself: the id comes from what the LMS writes (Moodle's folder,
Canvas's and Blackboard's top-level file names), never from a name the learner chose.  Ids from
file names and from rosters pass one check before they become folders or rows.  Extracted files
are plain 0644 files, and a download past the size, file-count or compression-ratio bound is not
collected at all, leaving the course as it was.
"""

from __future__ import annotations

import json
import stat
import zipfile

import pytest
from support import run_cli
from test_collect import NB, A, build_zip, collect, notebook, snapshot

from autograder.adapters import lms_roster
from autograder.adapters import lms as lms_collect
from autograder.values.errors import UserError


@pytest.mark.slow
def test_a_moodle_learner_cannot_submit_for_another(course_dir, tmp_path):
    dl = build_zip(tmp_path / "moodle.zip", {
        # Ann names her file the way Canvas would name Bob's (LMS id 2002)
        f"Ann Lee_2001_assignsubmission_file_/smithbob_2002_999_{NB}.ipynb": notebook(course_dir, "ann as bob"),
        f"Cy Ro_2003_assignsubmission_file_/{NB}.ipynb": notebook(course_dir, "cy"),
        # Di does the same with a notebook that carries no cell of the course
        f"Di Wu_2004_assignsubmission_file_/smithbob_2002_998_{NB}.ipynb": json.dumps(
            {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}),
    })
    out = collect(course_dir, str(dl))
    assert out.returncode == 0, out.stdout + out.stderr
    sub = course_dir / "submitted"
    # nothing for 2002: Ann's file is Ann's, the notebook its cells are
    assert sorted(p.name for p in sub.iterdir()) == ["2001", "2003"]
    assert "ann as bob" in (sub / "2001" / A / f"{NB}.ipynb").read_text()
    assert f"smithbob_2002_999_{NB}.ipynb: taken as 2001's {NB}.ipynb (renamed" in out.stdout, out.stdout
    assert f"no notebook of this assignment is named smithbob_2002_998_{NB}, and its cells" in out.stdout, out.stdout
    kept = {p.name for p in (course_dir / "downloaded" / A / "kept-aside").rglob("*.ipynb")}
    assert f"smithbob_2002_998_{NB}.ipynb" in kept
    warning = [line for line in out.stdout.splitlines() if line.startswith("WARNING")]
    assert warning and "Moodle's own LMS ids are used as student ids" in warning[0], out.stdout


def test_each_download_is_read_in_one_layout():
    moodle = [f"Ann Lee_2001_assignsubmission_file_/smithbob_2002_999_{NB}.ipynb",
              f"Bo Chan_2002_assignsubmission_file_/{NB}.ipynb"]
    assert lms_collect.layout(moodle) == "moodle"
    assert lms_collect.parse(moodle[0], "moodle")["lms_id"] == "2001"
    assert lms_collect.parse(moodle[0], "canvas") is None  # a Canvas name only counts at the top
    assert lms_collect.parse(f"smithbob_2002_999_{NB}.ipynb", "moodle") is None
    canvas = [f"smithjane_101_9001_{NB}.ipynb", f"sub/smithbob_102_9002_{NB}.ipynb"]
    assert lms_collect.layout(canvas) == "canvas"
    assert lms_collect.parse(canvas[1], "canvas") is None
    assert lms_collect.layout(["readme.txt"]) is None


@pytest.mark.slow
def test_ids_that_are_not_plain_names_are_kept_aside(course_dir, tmp_path):
    when = "attempt_2026-11-19-08-00-00"
    bad = ["=HYPERLINK(1)", "+1", "@cmd", "-rf", "a,b", "\uff43ara", "tab\there", ".hidden"]
    files = {f"Tensors_{u}_{when}_{NB}.ipynb": notebook(course_dir, u) for u in bad}
    files[f"Tensors_cara_{when}_{NB}.ipynb"] = notebook(course_dir, "cara")
    out = collect(course_dir, str(build_zip(tmp_path / "bb.zip", files)))
    assert out.returncode == 0, out.stdout + out.stderr
    assert [p.name for p in (course_dir / "submitted").iterdir()] == ["cara"]
    assert out.stdout.count("cannot be used") == len(bad), out.stdout
    assert "NFKC" in out.stdout and "formula" in out.stdout and "comma" in out.stdout


def test_a_roster_with_an_unsafe_student_id_names_the_row(tmp_path):
    path = tmp_path / "roster.csv"
    for value in ("=1+1", "+44", "@x", "-x", '"a,b"', "\uff4aane", '"jane\nx"', "a\x07"):
        path.write_text(f"lms_id,student_id\n101,jane\n102,{value}\n")
        with pytest.raises(UserError, match="line 3: student id .* cannot be a folder name"):
            lms_roster.read(path)
    for value in ("jane", "jane.smith", "jane@example.org", "j-ane", "101"):
        assert lms_roster.check_id(value) is None, value


@pytest.mark.slow
def test_extracted_files_keep_no_modes_from_the_archive(course_dir, tmp_path):
    dl = tmp_path / "modes.zip"
    with zipfile.ZipFile(dl, "w") as z:
        for name, text in ((f"Ann Lee_2001_assignsubmission_file_/{NB}.ipynb", notebook(course_dir, "ann")),
                           ("Ann Lee_2001_assignsubmission_file_/run.sh", "#!/bin/sh\n")):
            info = zipfile.ZipInfo(name, date_time=(2026, 11, 20, 12, 0, 0))
            info.external_attr = (stat.S_IFREG | stat.S_ISUID | stat.S_ISGID | 0o777) << 16
            z.writestr(info, text)
    out = collect(course_dir, str(dl))
    assert out.returncode == 0, out.stdout + out.stderr
    submitted = course_dir / "submitted" / "2001" / A / f"{NB}.ipynb"
    assert stat.S_IMODE(submitted.stat().st_mode) == 0o644
    (kept,) = (course_dir / "downloaded" / A / "kept-aside").rglob("run.sh")
    assert stat.S_IMODE(kept.stat().st_mode) == 0o644


def test_a_zip_bomb_or_a_flood_of_files_is_not_collected(course_dir, tmp_path):
    before = snapshot(course_dir)
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(f"Ann Lee_2001_assignsubmission_file_/{NB}.ipynb", "{}")
        z.writestr("Ann Lee_2001_assignsubmission_file_/zeros.bin", b"\0" * (20 << 20))
    flood = tmp_path / "flood.zip"
    with zipfile.ZipFile(flood, "w") as z:
        for i in range(20001):  # one more than MAX_FILES
            z.writestr(f"Ann Lee_2001_assignsubmission_file_/f{i}.txt", "")
    for dl, why in ((bomb, "times its size"), (flood, "files, more than the 20000")):
        out = run_cli(["collect", str(dl), "--assignment", A], course_dir)
        assert out.returncode == 2 and "nothing collected" in out.stderr and why in out.stderr, out.stderr
        assert len(out.stderr.strip().splitlines()) == 1, out.stderr
        assert snapshot(course_dir) == before


def test_the_unpacked_size_is_bounded():
    big = zipfile.ZipInfo("a.ipynb")
    big.file_size = lms_collect.MAX_TOTAL_BYTES + 1
    assert "more than the" in lms_collect.bounds([big], lms_collect.MAX_TOTAL_BYTES)
    small = zipfile.ZipInfo("a.ipynb")
    small.file_size = 1000
    assert lms_collect.bounds([small], 100) is None
    assert "times its size" in lms_collect.bounds([small], 4)
