"""The student pack: everything a learner needs, no line of a solution or a hidden test, and a
``check`` that works inside it on its own."""

from __future__ import annotations

import json
import sys
import zipfile

import pytest
from support import ROOT, run_cli, run_tool, set_answers

from autograder.commands import handout
from autograder.values import course


@pytest.fixture(scope="module")
def pack(tmp_path_factory):
    dest = tmp_path_factory.mktemp("handout") / "pack"
    out = run_cli(["handout", "--default-variant", "--to", str(dest)], ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    return dest


def test_the_pack_holds_what_a_learner_needs(pack):
    names = [a.name for a in course.assignments(ROOT)]
    for name in names:
        for nb in course.Assignment(name, ROOT).notebooks():
            assert (pack / "notebooks" / name / f"{nb}.ipynb").is_file()
            assert (pack / handout.PRISTINE / name / f"{nb}.ipynb").is_file()
    assert (pack / "notebooks" / "07_distributed" / "distlab.py").is_file()  # support files
    for f in ("README.md", "pyproject.toml", "environment.yml", "nbgrader_config.py", "autograder/commands/check.py",
              "autograder/probe/kernelinit.py", "autograder/probe/__init__.py"):
        assert (pack / f).is_file(), f
    assert "autograder check" in (pack / "README.md").read_text()
    assert not (pack / "solutions").exists() and not list(pack.rglob("gradebook.db"))


def test_no_line_of_a_solution_or_hidden_test_is_in_the_pack(pack):
    secrets = handout.secret_lines(ROOT)
    assert len(secrets) > 500  # the scan has something to look for
    assert handout.leaks(pack, ROOT) == []
    for p in (pack / "notebooks").rglob("*.ipynb"):
        text = p.read_text()
        assert "BEGIN SOLUTION" not in text and "BEGIN HIDDEN TESTS" not in text and "hidden_test" not in text
    # and the scan does find a leak when there is one
    sol = course.read(course.Assignment("01_tensors", ROOT).solution("01_tensors"))
    planted = pack.parent / "planted"
    planted.mkdir()
    (planted / "copy.ipynb").write_text(json.dumps(sol))
    assert handout.leaks(planted, ROOT)


def test_a_zip_pack(tmp_path):
    out = run_cli(["handout", "01_tensors", "--default-variant", "--to", str(tmp_path / "pack.zip")], ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    with zipfile.ZipFile(tmp_path / "pack.zip") as z:
        names = z.namelist()
    assert "pack/notebooks/01_tensors/01_tensors.ipynb" in names and "pack/README.md" in names
    assert not any("02_autograd" in n for n in names)
    assert handout.leaks(tmp_path / "pack.zip", ROOT) == []
    # a pack already there (handed out, or a file of yours) is never written over
    before = (tmp_path / "pack.zip").read_bytes()
    again = run_cli(["handout", "01_tensors", "--default-variant", "--to", str(tmp_path / "pack.zip")], ROOT)
    assert again.returncode == 2 and len(again.stderr.strip().splitlines()) == 1, again.stdout + again.stderr
    assert "exists" in again.stderr and "move it away" in again.stderr
    assert (tmp_path / "pack.zip").read_bytes() == before


@pytest.mark.slow
def test_check_inside_the_pack_runs_the_visible_tests(pack):
    nb_path = pack / "notebooks" / "01_tensors" / "01_tensors.ipynb"
    nb = json.loads(nb_path.read_text())
    answer = (ROOT / "tests" / "answers" / "01_tensors" / "ex1_1" / "correct_cdist.py").read_text()
    for cell in nb["cells"]:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "ex1_1_solution":
            cell["source"] = answer
    nb_path.write_text(json.dumps(nb))
    out = run_cli(["check", str(nb_path), "--hidden"], pack)
    assert out.returncode == 3, out.stdout + out.stderr  # nothing failed, the rest not attempted
    assert "holds no hidden tests: your instructor runs them" in out.stdout
    line = next(l for l in out.stdout.splitlines() if "Exercise 1.1" in l)
    assert "[PASS]" in line, out.stdout


@pytest.mark.slow
def test_validate_inside_the_pack(tmp_path):
    """nbgrader's Validate (the button runs ``nbgrader validate``) on the pack's own configuration:
    a notebook answered as the solution passes, one visible-test bug fails with its cell shown."""
    pack = tmp_path / "pack"
    out = run_cli(["handout", "01_tensors", "--default-variant", "--to", str(pack)], ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    nb_path = pack / "notebooks" / "01_tensors" / "01_tensors.ipynb"
    solution = course.read(ROOT / "solutions" / "01_tensors" / "01_tensors.ipynb")
    answers = {course.grade_id(c): c.source for c in solution.cells if course.is_solution(c)}
    set_answers(nb_path, answers)
    validate = [sys.executable, "-m", "nbgrader", "validate", str(nb_path.relative_to(pack))]
    out = run_tool(validate, pack)
    assert "Success! Your notebook passes all the tests." in out.stdout, out.stdout[-3000:] + out.stderr[-3000:]

    wrong = next(p for p in sorted((ROOT / "tests" / "answers" / "01_tensors").glob("ex1_*/wrong_*.py"))
                 if p.read_text().startswith("# caught by the visible tests"))
    set_answers(nb_path, {f"{wrong.parent.name}_solution": wrong.read_text()})
    out = run_tool(validate, pack)
    assert "VALIDATION FAILED ON 1 CELL(S)!" in out.stdout, out.stdout[-3000:] + out.stderr[-3000:]
