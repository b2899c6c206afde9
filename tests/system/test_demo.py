"""The main job on the sample submissions, in a course of its own: scores match what each sample deserves;
feedback never shows hidden tests; the CSV export has every row; a rerun keeps finished work; the course
itself, and a class it serves, never see the samples."""

from __future__ import annotations

import csv
import json
import sys

import pytest
from support import run_tool

from autograder.grading.store import ResultStore

ASSIGNMENT = "01_tensors"
END_TO_END = ("07_distributed", "10_compile", "12_capstone")


@pytest.mark.slow
def test_demo_grades_samples_as_deserved_in_a_course_of_its_own(course_dir):
    """``make demo``'s command, as it runs it: in demo/, a private copy of the course with its own gradebook,
    whatever the course's settings say (here a class's gradebook elsewhere), and nowhere else."""
    py = [sys.executable, "-m", "autograder"]
    class_gradebook = course_dir / "class" / "gradebook.db"  # the class's own, named in the course's settings
    with open(course_dir / "nbgrader_config.py", "a") as f:
        f.write(f"\nc.CourseDirectory.db_url = 'sqlite:///{class_gradebook}'\n")
    before = sorted(p.relative_to(course_dir) for p in course_dir.rglob("*"))
    out = run_tool(py + ["demo", ASSIGNMENT, "--workers", "2"], course_dir)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    demo = course_dir / "demo"
    assert f"demo: in {demo}, a private copy of the course" in out.stdout, out.stdout[:2000]
    # the course is as it was, but for demo/: no gradebook, results, feedback or export of the samples there
    after = sorted(p.relative_to(course_dir) for p in course_dir.rglob("*") if demo not in p.parents and p != demo)
    assert after == before and not class_gradebook.exists()
    # as make demo grades them: the samples hold the default variant of each notebook, and are graded on it
    assert "another variant" not in out.stdout + out.stderr, out.stdout[-3000:]
    expected = json.loads((course_dir / "examples" / "expected.json").read_text())[ASSIGNMENT]
    store = ResultStore(demo)
    for student, notebooks in expected.items():
        for nb, score in notebooks.items():
            got = store.get(ASSIGNMENT, student, nb).score
            assert got == score, f"{student}/{nb}: scored {got}, deserves {score}\n{out.stdout[-2000:]}"
    assert (demo / "gradebook.db").is_file()

    html_files = list((demo / "feedback").glob(f"*/{ASSIGNMENT}/*.html"))
    assert len(html_files) == len(expected)
    for f in html_files:
        text = f.read_text()
        assert "BEGIN HIDDEN TESTS" not in text and "hidden_test" not in text and "obs.value" not in text
        assert "Score:" in text and "another variant" not in text

    rows = list(csv.DictReader(open(demo / "grades.csv")))
    assert {(r["student"], float(r["score"])) for r in rows} == \
        {(s, float(sum(v.values()))) for s, v in expected.items()}

    again = run_tool(py + ["demo", ASSIGNMENT], course_dir)
    assert again.returncode == 0, again.stderr[-2000:]
    assert f"{len(expected)} notebook(s) already graded with the same submission, tests, grader, seed and policy: kept" in again.stdout
    assert "graded 0 notebook(s)" in again.stdout


@pytest.mark.slow
def test_the_solutions_earn_full_marks_through_grade(course_dir):
    """The notebooks whose code leans most on the machine (processes and shared memory in 07, compiled
    kernels and their cache in 10, the capstone's whole stack in 12) through the real pipeline: the
    sandbox, the reference run on its grade path, the merge, the judge, the gradebook.

    (tests/grading/test_notebooks.py runs every notebook's answers in grading's own sandboxed kernel session;
    this adds ``grade`` end to end on the solutions themselves.)"""
    import shutil

    from autograder.sandbox import launch as sandbox
    from autograder.values import course

    if not sandbox.available():
        pytest.skip("needs bubblewrap and root (make setup)")
    subs = course_dir / "reference_submissions"
    chosen = [a for a in course.assignments(course_dir) if a.name in END_TO_END]
    assert len(chosen) == len(END_TO_END)
    for a in chosen:
        shutil.copytree(a.solution_dir, subs / "reference" / a.name,
                        ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    out = run_tool([sys.executable, "-m", "autograder", "grade", "--submissions", str(subs), "--workers", "2"],
                   course_dir)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    store = ResultStore(course_dir)
    for a in chosen:
        for nb in a.notebooks():
            r = store.get(a.name, "reference", nb)
            assert r is not None and r.score == r.max_score, (a.name, r and [(e.id, e.message) for e in r.exercises])
