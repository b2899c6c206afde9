"""nbgrader's own autograde (the formgrader's *Autograde* button, and ``nbgrader autograde``)
grades in the sandbox: hostile submissions that fool a plain kernel earn what ``autograder
grade`` gives them, and an honest one keeps its full score."""

from __future__ import annotations

import json
import subprocess
import sys

import nbformat
import pytest

import attacks
from attacks import gradebook_scores
from support import tool_env
from test_security import fixture_course

pytestmark = [pytest.mark.slow]

# Both fool stock nbgrader's plain kernel: the asserts vanish, or the failure prints nothing.
HOSTILE = ("input_transformer", "hide_tracebacks")

# Exactly what the formgrader's Autograde button calls (nbgrader.server_extensions.formgrader).
BUTTON = """
import json, sys
from nbgrader.apps.api import NbGraderAPI
from nbgrader.apps.nbgraderapp import NbGraderApp
from nbgrader.coursedir import CourseDirectory
app = NbGraderApp()
app.load_config_file()
api = NbGraderAPI(CourseDirectory(parent=app), parent=app)
print(json.dumps({s: api.autograde(sys.argv[1], s)["success"] for s in sys.argv[2:]}))
"""


def test_formgrader_autograde_button_grades_in_the_sandbox(tmp_path):
    course = fixture_course(tmp_path / "course")
    release = course / "notebooks" / attacks.ASSIGNMENT / f"{attacks.ASSIGNMENT}.ipynb"
    cases = [c for c in attacks.attacks(course) if c.student in HOSTILE]
    assert len(cases) == len(HOSTILE)
    honest = attacks.Case("honest", "", 3, answers=attacks.answers(attacks.CORRECT_1, attacks.CORRECT_2), attack=False)
    attacks.build([honest, *cases], release, course / "submitted")

    students = ["honest", *HOSTILE]
    out = subprocess.run([sys.executable, "-c", BUTTON, attacks.ASSIGNMENT, *students], cwd=course,
                         env=tool_env(), capture_output=True, text=True, timeout=1200)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-3000:]
    assert json.loads(out.stdout.strip().splitlines()[-1]) == {s: True for s in students}, out.stderr[-3000:]
    assert gradebook_scores(course) == {"honest": 3, **{s: 0 for s in HOSTILE}}
    # what nbgrader scored is what the sandboxed grader recorded
    for student in students:
        kept = json.loads((course / ".autograder" / "results" / attacks.ASSIGNMENT / student /
                           f"{attacks.ASSIGNMENT}.json").read_text())["result"]
        assert sum(e["score"] for e in kept["exercises"]) == gradebook_scores(course)[student]
        graded = nbformat.read(course / "autograded" / student / attacks.ASSIGNMENT / f"{attacks.ASSIGNMENT}.ipynb",
                               as_version=4)
        tests = [c for c in graded.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "ex0_1_tests"]
        failed = any(o.output_type == "error" for o in tests[0].outputs)
        assert failed == (student != "honest"), student


def test_trusted_input_runs_nbgraders_own_execute(tmp_path):
    """The escape hatch is what it says: stock execution, which the hostile submission fools."""
    course = fixture_course(tmp_path / "course")
    release = course / "notebooks" / attacks.ASSIGNMENT / f"{attacks.ASSIGNMENT}.ipynb"
    attacks.build([c for c in attacks.attacks(course) if c.student == "input_transformer"], release,
                  course / "submitted")
    out = subprocess.run([sys.executable, "-m", "nbgrader", "autograde", attacks.ASSIGNMENT, "--force",
                          "--SandboxedGrade.trusted_input=True"], cwd=course, env=tool_env(),
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert gradebook_scores(course)["input_transformer"] > 0
    assert not (course / ".autograder" / "results").exists()


def test_no_graded_notebook_reaches_nbgrader_as_a_zero(tmp_path):
    """A notebook the grader refuses (an empty one padded past the size limit) is a zero from the button too,
    never the unexecuted copy nbgrader would score as all tests passed; an id that looks like an option is
    graded as an id."""
    from autograder.submission import MAX_NOTEBOOK_BYTES

    course = fixture_course(tmp_path / "course")
    release = course / "notebooks" / attacks.ASSIGNMENT / f"{attacks.ASSIGNMENT}.ipynb"
    nb = json.loads(release.read_text())
    nb["metadata"]["padding"] = "x" * (MAX_NOTEBOOK_BYTES + 1024)
    right = attacks.answers(attacks.CORRECT_1, attacks.CORRECT_2)
    attacks.build([attacks.Case("padded", "", 0, raw=json.dumps(nb).encode(), attack=False),
                   attacks.Case("-x", "", 3, answers=right, attack=False)], release, course / "submitted")
    out = subprocess.run([sys.executable, "-c", BUTTON, attacks.ASSIGNMENT, "padded", "-x"], cwd=course,
                         env=tool_env(), capture_output=True, text=True, timeout=1200)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-3000:]
    assert gradebook_scores(course) == {"padded": 0, "-x": 3}, out.stderr[-3000:]
