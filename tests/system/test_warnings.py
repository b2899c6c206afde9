"""A harmless warning on stderr does not zero a test cell; a real failure still does.

nbgrader scores a test cell 0 when it wrote to stderr, and PyTorch warns often.
Checked through both stock ``nbgrader autograde`` (the course's nbgrader_config.py
routes warnings to stdout at kernel start) and ``autograder grade``.
"""

import sys

import attacks
import pytest
from attacks import gradebook_scores
from support import fixture_course, run_tool

pytestmark = [pytest.mark.slow]

WARNS = "import warnings\ndef add_one(x):\n    warnings.warn('a harmless deprecation notice', DeprecationWarning)\n" \
        "    warnings.warn('a harmless user warning')\n    return x + 1\n"
RAISES = "def add_one(x):\n    raise RuntimeError('a real failure')\n"


@pytest.mark.parametrize("grader", ["stock", "autograder"])
def test_warning_is_not_a_failure(tmp_path, grader):
    course = fixture_course(tmp_path / "course")
    release = course / "notebooks" / attacks.ASSIGNMENT / f"{attacks.ASSIGNMENT}.ipynb"
    attacks.build([attacks.Case("warns", "", 3, answers=attacks.answers(WARNS, attacks.CORRECT_2)),
                   attacks.Case("raises", "", 2, answers=attacks.answers(RAISES, attacks.CORRECT_2))],
                  release, course / "submitted")
    if grader == "stock":
        cmd = [sys.executable, "-m", "nbgrader", "autograde", attacks.ASSIGNMENT, "--force",
               "--GradeInSandbox.trusted_input=True"]
    else:
        cmd = [sys.executable, "-m", "autograder", "grade", attacks.ASSIGNMENT, "--workers", "1"]
    out = run_tool(cmd, course)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert gradebook_scores(course) == {"warns": 3, "raises": 2}
