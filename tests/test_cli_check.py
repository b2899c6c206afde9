"""`autograder check` as a learner runs it: untouched notebook, solution, hidden tests."""

import subprocess
import sys

import pytest

from harness import ROOT


def run(*args):
    return subprocess.run([sys.executable, "-m", "autograder", *args], capture_output=True, text=True, cwd=ROOT)


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
