"""`autograder check` as a learner runs it: untouched notebook, solution, hidden tests."""

import pytest
from harness import ROOT
from support import run_cli


def run(*args):
    return run_cli(list(args), ROOT)


@pytest.mark.slow
def test_check_untouched_notebook_reports_not_attempted():
    out = run("check", "notebooks/01_tensors/01_tensors.ipynb")
    assert out.returncode == 3, out.stdout + out.stderr
    assert "[TODO]" in out.stdout and "[PASS]" not in out.stdout and "[FAIL]" not in out.stdout


@pytest.mark.slow
def test_check_solution_with_hidden_tests_passes_without_showing_them():
    out = run("check", "solutions/01_tensors/01_tensors.ipynb", "--hidden")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "[PASS]" in out.stdout and "[FAIL]" not in out.stdout and "[TODO]" not in out.stdout
    assert "hidden_test" not in out.stdout and "obs.value" not in out.stdout


@pytest.mark.slow
def test_progress_on_a_notebook_edited_in_place(course_dir):
    """Learners edit notebooks/ in place: a wrong answer there is FAIL, not TODO; the rest stay TODO."""
    import json

    path = course_dir / "notebooks" / "01_tensors" / "01_tensors.ipynb"
    nb = json.loads(path.read_text())
    wrong = (ROOT / "tests" / "answers" / "01_tensors" / "ex1_1" / "wrong_squared.py").read_text()
    for cell in nb["cells"]:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "ex1_1_solution":
            cell["source"] = wrong
    path.write_text(json.dumps(nb))
    out = run_cli(["progress", "notebooks/01_tensors"], course_dir)
    assert out.returncode == 1, out.stdout + out.stderr
    lines = [l for l in out.stdout.splitlines() if "Exercise 1." in l]
    assert "[FAIL]" in lines[0] and all("[TODO]" in l for l in lines[1:]), out.stdout
    untouched = run_cli(["progress", "notebooks/02_autograd"], course_dir)
    assert untouched.returncode == 3 and "[PASS]" not in untouched.stdout and "[FAIL]" not in untouched.stdout
