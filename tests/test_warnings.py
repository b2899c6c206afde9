"""A harmless warning on stderr does not zero a test cell; a real failure still does.

nbgrader scores a test cell 0 when it wrote to stderr, and PyTorch warns often.
Checked through both stock ``nbgrader autograde`` (the course's nbgrader_config.py
routes warnings to stdout at kernel start) and ``autograder grade``.
"""

import sqlite3
import sys

import pytest

import attacks
from conftest import run_tool
from test_security import fixture_course

pytestmark = [pytest.mark.slow]

WARNS = "import warnings\ndef add_one(x):\n    warnings.warn('a harmless deprecation notice', DeprecationWarning)\n" \
        "    warnings.warn('a harmless user warning')\n    return x + 1\n"
RAISES = "def add_one(x):\n    raise RuntimeError('a real failure')\n"


def _scores(course):
    con = sqlite3.connect(course / "gradebook.db")
    rows = con.execute("""SELECT student.id, grade.auto_score FROM grade
        JOIN submitted_notebook ON grade.notebook_id = submitted_notebook.id
        JOIN submitted_assignment ON submitted_notebook.assignment_id = submitted_assignment.id
        JOIN student ON submitted_assignment.student_id = student.id""").fetchall()
    out = {}
    for sid, s in rows:
        out[sid] = out.get(sid, 0) + (s or 0)
    return out


@pytest.mark.parametrize("grader", ["stock", "autograder"])
def test_warning_is_not_a_failure(tmp_path, grader):
    course = fixture_course(tmp_path / "course")
    release = course / "notebooks" / attacks.ASSIGNMENT / f"{attacks.ASSIGNMENT}.ipynb"
    attacks.build([attacks.Case("warns", "", 3, answers=attacks._ans(WARNS, attacks.CORRECT_2)),
                   attacks.Case("raises", "", 2, answers=attacks._ans(RAISES, attacks.CORRECT_2))],
                  release, course / "submitted")
    if grader == "stock":
        cmd = [sys.executable, "-m", "nbgrader", "autograde", attacks.ASSIGNMENT, "--force"]
    else:
        cmd = [sys.executable, "-m", "autograder", "grade", attacks.ASSIGNMENT, "--workers", "1"]
    out = run_tool(cmd, course)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert _scores(course) == {"warns": 3, "raises": 2}
