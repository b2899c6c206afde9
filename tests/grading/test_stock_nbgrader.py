"""Stock nbgrader on this course directory: the released stubs earn 0 on every autograded cell,
and the reference solution earns full marks (hidden tests run in the notebook's `local` mode).

Each notebook costs two whole runs under nbgrader's own Execute.  ``make test`` runs two: a plain
one and the multi-process one with support files; ``AUTOGRADER_TEST_STOCK=all`` runs every
notebook.  Every notebook's reference, stub and answer variants also run through the grader's own
executor (``tests/grading/test_notebooks.py``), and three whole notebooks through ``autograder grade``
(``tests/system/test_demo.py``)."""

from __future__ import annotations

import os
import shutil
import sys

import pytest
from harness import ROOT
from support import run_tool

from autograder.values import course

ASSIGNMENTS = [a.name for a in course.assignments(ROOT)]
if os.environ.get("AUTOGRADER_TEST_STOCK") != "all":
    ASSIGNMENTS = [a for a in ASSIGNMENTS if a.split("_")[0] in ("01", "07")]


@pytest.mark.slow
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_stock_autograde_stub_zero_solution_full(course_dir, assignment):
    from nbgrader.api import Gradebook

    a = course.Assignment(assignment, course_dir)
    out = run_tool([sys.executable, "-m", "nbgrader", "generate_assignment", assignment, "--force"], course_dir)
    assert out.returncode == 0, out.stderr
    for student, src in (("stub", a.release_dir), ("reference", a.solution_dir)):
        dest = course_dir / "submitted" / student / assignment
        shutil.copytree(src, dest)
    out = run_tool([sys.executable, "-m", "nbgrader", "autograde", assignment, "--force",
                    "--GradeInSandbox.trusted_input=True"], course_dir)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    problems = []
    with Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}") as gb:
        for nb in a.notebooks():
            for student, want_full in (("stub", False), ("reference", True)):
                sub = gb.find_submission_notebook(nb, assignment, student)
                for grade in sub.grades:
                    if grade.max_score == 0:
                        continue
                    expected = grade.max_score if want_full else 0
                    if grade.auto_score != expected:
                        problems.append(f"{student}/{nb}/{grade.name}: {grade.auto_score} (expected {expected})")
    assert not problems, "\n".join(problems)
