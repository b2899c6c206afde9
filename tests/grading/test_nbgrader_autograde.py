"""nbgrader's own autograde (the formgrader's *Autograde* button, and ``nbgrader autograde``)
grades in the sandbox, by the ``grade`` command run in nbgrader's process: a whole class, hostile
submissions that fool a plain kernel included, earns through the button exactly what ``autograder
grade`` gives it, and gets the same autograded notebooks."""

from __future__ import annotations

import json
import subprocess
import sys

import attacks
import nbformat
import pytest
from attacks import gradebook_scores
from support import fixture_course, tool_env

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


def test_trusted_input_runs_nbgraders_own_execute(tmp_path):
    """The escape hatch is what it says: stock execution, which the hostile submission fools."""
    course = fixture_course(tmp_path / "course")
    release = course / "notebooks" / attacks.ASSIGNMENT / f"{attacks.ASSIGNMENT}.ipynb"
    attacks.build([c for c in attacks.attacks(course) if c.student == "input_transformer"], release,
                  course / "submitted")
    out = subprocess.run([sys.executable, "-m", "nbgrader", "autograde", attacks.ASSIGNMENT, "--force",
                          "--GradeInSandbox.trusted_input=True"], cwd=course, env=tool_env(),
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert gradebook_scores(course)["input_transformer"] > 0
    assert not (course / ".autograder" / "results").exists()


def _gradebook(course) -> dict[str, tuple[float, float]]:
    """Each student's (auto score, late penalty) in the course's nbgrader gradebook."""
    import sqlite3

    con = sqlite3.connect(course / "gradebook.db")
    rows = con.execute("""SELECT student.id, SUM(grade.auto_score), MAX(submitted_notebook.late_submission_penalty)
        FROM grade JOIN submitted_notebook ON grade.notebook_id = submitted_notebook.id
        JOIN submitted_assignment ON submitted_notebook.assignment_id = submitted_assignment.id
        JOIN student ON submitted_assignment.student_id = student.id GROUP BY student.id""").fetchall()
    return {sid: (round(score or 0.0, 6), round(late or 0.0, 6)) for sid, score, late in rows}


def test_a_whole_class_gets_the_same_scores_through_both_paths(tmp_path):
    """One class graded twice, each on its own copy of the course: by ``autograder grade``, and by
    nbgrader's Autograde (the formgrader's button).  Honest, partial, wrong, crashing, refused,
    unreadable and hostile submissions, an id that looks like an option, and submission times on
    time, late and unreadable: every score and every late penalty agree (nbgrader stops at a
    ``timestamp.txt`` that does not read, so ``grade`` holds that notebook too).  A notebook the grader
    refuses (an empty one padded past the size limit) is a zero from the button too, never the
    unexecuted copy nbgrader would score as all tests passed."""
    import shutil

    from autograder.grading.steps.read import MAX_NOTEBOOK_BYTES

    first = fixture_course(tmp_path / "grade")
    with open(first / "nbgrader_config.py", "a") as f:
        f.write(f'\nc.LatePolicy.due_dates = {{"{attacks.ASSIGNMENT}": "2026-11-20 12:00:00 UTC"}}\n')
    release = first / "notebooks" / attacks.ASSIGNMENT / f"{attacks.ASSIGNMENT}.ipynb"
    padded = json.loads(release.read_text())
    padded["metadata"]["padding"] = "x" * (MAX_NOTEBOOK_BYTES + 1024)
    first_code = next(c for c in padded["cells"] if c["cell_type"] == "code")  # active content, never shown
    first_code["outputs"] = [{"output_type": "display_data", "metadata": {},
                              "data": {"text/html": "<script>stolen()</script>", "text/plain": "x"}}]
    right = attacks.answers(attacks.CORRECT_1, attacks.CORRECT_2)
    cases = [attacks.Case("honest", "", 3, answers=right, attack=False),
             attacks.Case("partial", "", 1, answers=attacks.answers(attacks.CORRECT_1), attack=False),
             attacks.Case("wrong", "", 2, answers=attacks.answers(attacks.WRONG_1, attacks.CORRECT_2), attack=False),
             attacks.Case("empty", "", 0, attack=False),
             attacks.Case("padded", "", 0, raw=json.dumps(padded).encode(), attack=False),
             attacks.Case("late", "", 3, answers=right, attack=False),
             attacks.Case("unreadable_time", "", 3, answers=right, attack=False),
             attacks.Case("-x", "", 3, answers=right, attack=False),
             *[c for c in attacks.faults() if c.student in ("exit_after_one", "malformed")],
             *[c for c in attacks.attacks(first) if c.student in HOSTILE]]
    attacks.build(cases, release, first / "submitted")
    times = {"honest": "2026-11-20 11:00:00 UTC", "late": "2026-11-22 13:00:00 UTC", "unreadable_time": "soon"}
    for student, when in times.items():  # what nbgrader's collect writes beside each submission
        (first / "submitted" / student / attacks.ASSIGNMENT / "timestamp.txt").write_text(when)
    second = tmp_path / "button"
    shutil.copytree(first, second)

    out_grade = subprocess.run([sys.executable, "-m", "autograder", "grade", attacks.ASSIGNMENT], cwd=first,
                               env=tool_env(), capture_output=True, text=True, timeout=1200)
    assert out_grade.returncode == 0, out_grade.stdout[-2000:] + out_grade.stderr[-3000:]
    students = sorted(c.student for c in cases)
    # the same term seed (drawn once per course, kept in .autograder/seeds.json) for both copies
    (second / ".autograder").mkdir(exist_ok=True)
    shutil.copyfile(first / ".autograder" / "seeds.json", second / ".autograder" / "seeds.json")
    out = subprocess.run([sys.executable, "-c", BUTTON, attacks.ASSIGNMENT, *students], cwd=second,
                         env=tool_env(), capture_output=True, text=True, timeout=1200)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-3000:]

    success = json.loads(out.stdout.strip().splitlines()[-1])
    assert success["unreadable_time"] is False and all(success[s] for s in ("honest", "-x", *HOSTILE)), success
    graded, button = _gradebook(first), _gradebook(second)
    assert button == graded, (graded, button)
    # the button graded in the sandbox: what nbgrader scored is what the sandboxed grader recorded, and a
    # hostile notebook's failed test cell shows its failure in the autograded notebook
    for student in ("honest", *HOSTILE):
        kept = json.loads((second / ".autograder" / "results" / attacks.ASSIGNMENT / student /
                           f"{attacks.ASSIGNMENT}.json").read_text())["result"]
        assert sum(e["score"] for e in kept["exercises"]) == button[student][0]
        graded_nb = nbformat.read(second / "autograded" / student / attacks.ASSIGNMENT /
                                  f"{attacks.ASSIGNMENT}.ipynb", as_version=4)
        tests = [c for c in graded_nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "ex0_1_tests"]
        assert any(o.output_type == "error" for o in tests[0].outputs) == (student != "honest"), student
    # one writer: the button's autograded notebook is the one `grade` writes, output for output, for every
    # notebook graded; a refused or unreadable one is a zero in both, shown as not graded by the button
    def shown(course, student):
        nb = json.loads((course / "autograded" / student / attacks.ASSIGNMENT / f"{attacks.ASSIGNMENT}.ipynb").read_text())
        for cell in nb["cells"]:  # a kernel killed in a cell may die before or after it reports the count
            cell.pop("execution_count", None)
        return nb

    for student in [c.student for c in cases if c.student not in ("unreadable_time", "padded", "malformed")]:
        assert shown(first, student) == shown(second, student), student
    for course in (first, second):  # not JSON: nbgrader cannot read it either, and neither path keeps a notebook
        assert not (course / "autograded" / "malformed" / attacks.ASSIGNMENT / f"{attacks.ASSIGNMENT}.ipynb").exists()
    assert not (first / "autograded" / "padded" / attacks.ASSIGNMENT / f"{attacks.ASSIGNMENT}.ipynb").exists()
    shown = nbformat.read(second / "autograded" / "padded" / attacks.ASSIGNMENT / f"{attacks.ASSIGNMENT}.ipynb",
                          as_version=4)
    tests = [c for c in shown.cells if c.metadata.get("nbgrader", {}).get("grade") and c.cell_type == "code"]
    assert tests and all(o.ename == "NotGraded" for c in tests for o in c.outputs)
    assert all(o.get("ename") == "NotGraded" for c in shown.cells if c.cell_type == "code" for o in c.outputs)
    # nbgrader's Autograde stops at a timestamp.txt that does not read; grade holds it too, saying what to do
    assert "held, not graded: unreadable_time" in out_grade.stderr and "unreadable_time" not in graded
    assert graded == {c.student: (float(c.score), 0.9 if c.student == "late" else 0.0)
                      for c in cases if c.student != "unreadable_time"}
