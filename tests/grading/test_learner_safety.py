"""A learner's work and a learner's mistakes: ``release`` never loses an edited notebook, commands
outside a course, renamed or corrupt notebooks and wrong names each get one clear line, and
stock ``nbgrader autograde`` restores hidden tests without calling an honest submission changed.

Everything runs on the two-exercise fixture course (``tests/fixtures/course``), released once per
module and copied per test.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import attacks
import pytest
from support import ROOT, fixture_course, run_cli, run_tool, set_answers

from autograder.commands import check
from autograder.values import course
from autograder.values.errors import UserError
from autograder.values.records import ExerciseResult, NotebookResult

pytestmark = pytest.mark.xdist_group("learner_safety")

NAME = attacks.ASSIGNMENT  # 00_fixture


def autograder(*args, cwd):
    return run_cli(list(args), cwd)


@pytest.fixture(scope="module")
def released(tmp_path_factory):
    return fixture_course(tmp_path_factory.mktemp("released") / "course")


@pytest.fixture
def fx(released, tmp_path):
    """A private copy of the released fixture course."""
    return Path(shutil.copytree(released, tmp_path / "course"))


def notebook(root: Path) -> Path:
    return root / "notebooks" / NAME / f"{NAME}.ipynb"


def answer_of(path: Path, gid: str = "ex0_1_solution") -> str:
    nb = json.loads(path.read_text())
    return next(c["source"] if isinstance(c["source"], str) else "".join(c["source"])
                for c in nb["cells"] if course.grade_id(c) == gid)


def one_line(out) -> str:
    """The whole of stderr, which must be one line and no traceback."""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in out.stderr, out.stderr
    return lines[0]


# ---------------------------------------------------------------- release keeps a learner's work


def test_release_keeps_an_edited_notebook_aside_and_is_idempotent(fx):
    set_answers(notebook(fx), attacks.answers(attacks.CORRECT_1))
    out = autograder("release", cwd=fx)
    assert out.returncode == 0, out.stdout + out.stderr
    kept = sorted(notebook(fx).parent.glob(f"{NAME}.mine-*.ipynb"))
    assert len(kept) == 1, sorted(p.name for p in notebook(fx).parent.iterdir())
    assert answer_of(kept[0]) == attacks.CORRECT_1  # the learner's answer, whole
    assert "NotImplementedError" in answer_of(notebook(fx))  # the fresh release in its place
    assert f"kept your notebooks/{NAME}/{NAME}.ipynb as notebooks/{NAME}/{kept[0].name}" in out.stdout, out.stdout

    again = autograder("release", cwd=fx)
    assert again.returncode == 0 and "kept" not in again.stdout, again.stdout + again.stderr
    assert sorted(notebook(fx).parent.glob(f"{NAME}.mine-*.ipynb")) == kept


def test_release_replaces_a_notebook_whose_outputs_alone_changed(fx):
    nb = json.loads(notebook(fx).read_text())
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            cell["execution_count"] = 7
            cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "ran\n"}]
    notebook(fx).write_text(json.dumps(nb))
    out = autograder("release", cwd=fx)
    assert out.returncode == 0 and "kept" not in out.stdout, out.stdout + out.stderr
    assert [p.name for p in notebook(fx).parent.iterdir()] == [f"{NAME}.ipynb"]
    assert '"outputs": []' in notebook(fx).read_text()


def _support_files(fx, names: list[str]) -> None:
    """List ``names`` as the support files of the fixture's solution notebook (autograder.values.support)."""
    path = fx / "solutions" / NAME / f"{NAME}.ipynb"
    nb = json.loads(path.read_text())
    nb["metadata"].setdefault("autograder", {})["support_files"] = names
    path.write_text(json.dumps(nb, indent=1))


def test_release_keeps_other_changed_files_and_leaves_the_learners_own(fx):
    helper = fx / "solutions" / NAME / "helper.py"
    helper.write_text("SCALE = 1\n")
    _support_files(fx, ["helper.py"])
    assert autograder("release", NAME, cwd=fx).returncode == 0
    released_helper = notebook(fx).parent / "helper.py"
    assert released_helper.read_text() == "SCALE = 1\n"

    released_helper.write_text("SCALE = 1  # my note\n")  # the learner edits a support file
    (notebook(fx).parent / "scratch.txt").write_text("my own notes\n")  # and keeps a file of their own
    helper.write_text("SCALE = 2\n")  # the instructor changes the support file
    out = autograder("release", NAME, cwd=fx)
    assert out.returncode == 0, out.stderr
    kept = list(notebook(fx).parent.glob("helper.mine-*.py"))
    assert len(kept) == 1 and kept[0].read_text() == "SCALE = 1  # my note\n", out.stdout
    assert released_helper.read_text() == "SCALE = 2\n"
    assert (notebook(fx).parent / "scratch.txt").read_text() == "my own notes\n"

    _support_files(fx, [])  # no longer released: the unchanged copy goes, nothing of the learner's does
    helper.unlink()
    out = autograder("release", NAME, cwd=fx)
    assert out.returncode == 0, out.stderr
    assert not released_helper.exists() and kept[0].is_file()
    assert (notebook(fx).parent / "scratch.txt").is_file()


def test_release_keeps_a_corrupt_notebook(fx):
    notebook(fx).write_text('{"cells": [')
    out = autograder("release", cwd=fx)
    assert out.returncode == 0, out.stderr
    kept = list(notebook(fx).parent.glob(f"{NAME}.mine-*.ipynb"))
    assert len(kept) == 1 and kept[0].read_text() == '{"cells": [', out.stdout
    json.loads(notebook(fx).read_text())


# ---------------------------------------------------------------- one clear line


def test_commands_outside_a_course_say_where_they_looked(tmp_path):
    """As ``python -m autograder`` prints it, in a process of its own: the one line and its exit status."""
    shutil.copy(ROOT / "notebooks" / "01_tensors" / "01_tensors.ipynb", tmp_path / "nb.ipynb")
    for args in (["release"], ["progress"], ["check", "nb.ipynb"], ["handout", "--to", "pack"]):
        out = run_tool([sys.executable, "-m", "autograder", *args], tmp_path)
        assert out.returncode == 2, (args, out.stdout, out.stderr)
        line = one_line(out)
        assert str(tmp_path) in line and "AUTOGRADER_COURSE_ROOT" in line and "cd into" in line, line
    assert not (tmp_path / "pack").exists()
    with pytest.raises(UserError):
        course.find_root(tmp_path)


def test_a_course_root_setting_that_is_no_course_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOGRADER_COURSE_ROOT", str(tmp_path))
    with pytest.raises(UserError, match="AUTOGRADER_COURSE_ROOT"):
        course.find_root()


def test_a_wrong_assignment_name_lists_the_valid_ones(fx):
    for args in (["release", "00_fixtur"], ["handout", "00_fixtur", "--to", str(fx / "pack")]):
        out = autograder(*args, cwd=fx)
        assert out.returncode == 2, out.stdout + out.stderr
        line = one_line(out)
        assert "00_fixtur" in line and f"the assignments are {NAME}" in line, line
    assert not (fx / "pack").exists()


def test_a_corrupt_notebook_says_how_to_recover(fx):
    bad = notebook(fx)
    bad.write_text(bad.read_text()[:200])
    out = autograder("check", str(bad), cwd=fx)
    assert out.returncode == 2, out.stdout + out.stderr
    line = one_line(out)
    assert "is not valid notebook JSON" in line and "Revert" in line and f"autograder release {NAME}" in line, line
    out = autograder("progress", cwd=fx)
    assert out.returncode == 1 and "Traceback" not in out.stdout + out.stderr, out.stdout + out.stderr
    assert "is not valid notebook JSON" in out.stdout, out.stdout


def test_report_prints_each_line_once():
    msg = "AssertionError: add_one(0) must be 1"
    result = NotebookResult("me", NAME, NAME, exercises=[
        ExerciseResult("ex0_1", "Exercise 0.1", 1, 0, "failed", message=msg, detail=f"{msg}\n{msg}"),
        ExerciseResult("ex0_2", "Exercise 0.2", 2, 0, "failed",
                       message="your answer cell raised NameError\nthe tests raised NameError (test cell, line 1)",
                       detail="NameError: name 'y' is not defined\nNameError: name 'y' is not defined")])
    text = check.summary(result, hidden=False)
    assert text.count("must be 1") == 1, text
    assert text.count("name 'y' is not defined") == 1, text


# ---------------------------------------------------------------- renamed notebooks


def test_graded_ids_ignore_malformed_metadata():
    nb = {"cells": [{"metadata": {"nbgrader": {"grade_id": "ex1_1_solution"}}},
                    {"metadata": {"nbgrader": {"grade_id": ["ex1_2_solution"]}}},
                    {"metadata": {"nbgrader": "ex1_3_tests"}},
                    {"metadata": []}, "not a cell", {}]}
    assert course.graded_ids(nb) == {"ex1_1_solution"}
    assert course.graded_ids({"cells": "nope"}) == set() and course.graded_ids([]) == set()


def test_identify_by_cells_whatever_the_name(tmp_path):
    src = ROOT / "notebooks" / "02_autograd" / "02_autograd.ipynb"
    for name in ("02_autograd (1).ipynb", "02_autograd-Copy1.ipynb", "02_Autograd.ipynb", "01_tensors.ipynb"):
        shutil.copy(src, tmp_path / name)
        a, nb = course.assignment_of_notebook(tmp_path / name, ROOT)
        assert (a.name, nb) == ("02_autograd", "02_autograd"), name
    assert course.identify(course.read(src), ROOT)[1] == "02_autograd"

    cells = [{"cell_type": "code", "metadata": {"nbgrader": {"grade_id": gid}}, "source": ""}
             for gid in ("ex1_1_solution", "ex2_1_solution")]
    with pytest.raises(UserError, match="several course notebooks"):
        course.identify({"cells": cells}, ROOT)
    with pytest.raises(UserError, match="not one of the course's notebooks") as err:
        course.identify({"cells": []}, ROOT)
    assert "solutions" not in str(err.value)


@pytest.mark.slow
def test_check_and_progress_recognise_renamed_copies(fx, tmp_path):
    set_answers(notebook(fx), attacks.answers(attacks.CORRECT_1, attacks.WRONG_1.replace("add_one", "double")))
    copies = tmp_path / "downloads"
    copies.mkdir()
    for name in (f"{NAME} (1).ipynb", f"{NAME}-Copy1.ipynb", "00_Fixture.ipynb"):
        shutil.copy(notebook(fx), copies / name)
    out = autograder("check", str(copies / "00_Fixture.ipynb"), cwd=fx)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "[PASS] Exercise 0.1" in out.stdout and "[FAIL] Exercise 0.2" in out.stdout, out.stdout
    out = autograder("progress", str(copies), cwd=fx)
    assert out.returncode == 1 and out.stdout.count("[PASS] Exercise 0.1") == 3, out.stdout + out.stderr
    (copies / "other.ipynb").write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4,
                                                     "nbformat_minor": 5}))
    out = autograder("check", str(copies / "other.ipynb"), cwd=fx)
    assert out.returncode == 2 and "solutions" not in out.stderr, out.stderr
    assert "not one of the course's notebooks" in one_line(out)


@pytest.mark.slow
def test_visible_tests_alone_give_no_points(fx):
    """Visible asserts catch only some bugs: without the hidden tests a pass is "visible tests passed", never
    points or a score; with them, the points."""
    set_answers(notebook(fx), attacks.answers(attacks.CORRECT_1))
    out = autograder("check", str(notebook(fx)), cwd=fx)
    assert out.returncode == 3, out.stdout + out.stderr
    assert "[PASS] Exercise 0.1 — Add one  (visible tests passed)" in out.stdout, out.stdout
    assert "[TODO] Exercise 0.2 — Double  (not attempted)" in out.stdout, out.stdout
    assert "score" not in out.stdout and "/3" not in out.stdout and "add --hidden" in out.stdout, out.stdout
    out = autograder("check", str(notebook(fx)), "--hidden", cwd=fx)
    assert out.returncode == 3, out.stdout + out.stderr
    assert "[PASS] Exercise 0.1 — Add one  (1/1)" in out.stdout and "score 1/3" in out.stdout, out.stdout
    out = autograder("progress", str(notebook(fx).parent), cwd=fx)
    assert "visible tests passed" in out.stdout and "score" not in out.stdout and "/3" not in out.stdout, out.stdout


def test_progress_counts_a_kept_copy_once_and_orders_exercises_by_number(fx):
    """A copy a release kept aside is the learner's earlier work, not a second notebook ("18/36"); exercises
    come in the order of their numbers (notebook 07 holds 7.7's cells before 7.6's)."""
    shutil.copy(notebook(fx), notebook(fx).with_name(f"{NAME}.mine-2026-12-01T150102.ipynb"))
    out = autograder("progress", str(notebook(fx).parent), cwd=fx)
    assert out.returncode == 3 and out.stdout.count("[TODO] Exercise 0.1") == 1, out.stdout + out.stderr
    assert "0 passed, 0 failed, 2 not attempted" in out.stdout, out.stdout
    out = autograder("progress", "notebooks/07_distributed", cwd=ROOT)  # untouched: no kernel runs
    numbers = [line.split("Exercise ")[1].split(" ")[0] for line in out.stdout.splitlines() if "[TODO] Exercise" in line]
    assert numbers == ["7.1", "7.2", "7.3", "7.4", "7.5", "7.6", "7.7"], out.stdout


@pytest.mark.slow
def test_validate_says_an_exercise_is_not_attempted_in_one_line(fx):
    """nbgrader's Validate, on the course's configuration: an exercise whose stub still raises is named as not
    attempted yet, in one line, instead of the stub's traceback."""
    set_answers(notebook(fx), attacks.answers(attacks.CORRECT_1))
    out = run_tool([sys.executable, "-m", "nbgrader", "validate", str(notebook(fx).relative_to(fx))], fx)
    assert "VALIDATION FAILED ON 1 CELL(S)!" in out.stdout, out.stdout[-3000:] + out.stderr[-3000:]
    assert "NotImplementedError: Exercise 0.2 is not attempted yet:" in out.stdout, out.stdout[-3000:]
    assert "Traceback" not in out.stdout and "exercise not attempted yet" not in out.stdout, out.stdout[-3000:]


def test_validate_names_the_exercise_whose_stub_raised(monkeypatch):
    """Where one exercise's tests use another's answer, the exercise named is the one not attempted."""
    import nbformat

    from autograder.adapters import validate
    from autograder.values.learner_view import CODE_STUB

    monkeypatch.setenv("NBGRADER_VALIDATING", "1")

    def cell(gid, source, **meta):
        return nbformat.v4.new_code_cell(source, metadata={"nbgrader": {"grade_id": gid, **meta}})

    stub = cell("ex5_3_solution", CODE_STUB, solution=True, grade=False)
    answer = cell("ex5_1_solution", "def f(): return g()", solution=True, grade=False)
    tests = cell("ex5_1_tests", "assert f()", solution=False, grade=True, points=1)
    for i, c in enumerate((stub, answer, tests)):
        validate.counting(cell=c, cell_index=i)
    tests.execution_count = 3
    tests.outputs = [nbformat.v4.new_output("error", ename="NotImplementedError", evalue="exercise not attempted yet",
                                            traceback=["Cell In[3], line 1", "Cell In[2], line 1, in f()",
                                                       "Cell In[1], line 2, in g()"])]
    validate.not_attempted(cell=tests, cell_index=2, execute_reply={})
    assert tests.outputs[0].traceback[0] == ("NotImplementedError: These tests use exercise 5.3, which is not "
                                             "attempted yet:"), tests.outputs[0].traceback
    monkeypatch.delenv("NBGRADER_VALIDATING")  # grading is not Validate: outputs stay as they are
    tests.outputs[0].traceback = ["as raised"]
    validate.not_attempted(cell=tests, cell_index=2, execute_reply={})
    assert tests.outputs[0].traceback == ["as raised"]


# ---------------------------------------------------------------- a student pack


@pytest.mark.slow
def test_check_hidden_in_a_pack_and_release_there_keeps_work(fx, tmp_path):
    pack = tmp_path / "pack"
    out = autograder("handout", "--to", str(pack), cwd=fx)
    assert out.returncode == 0, out.stdout + out.stderr
    set_answers(notebook(pack), attacks.answers(attacks.CORRECT_1))
    out = autograder("check", str(notebook(pack)), "--hidden", cwd=pack)
    assert out.returncode == 3, out.stdout + out.stderr
    assert out.stdout.splitlines()[0] == check.NO_HIDDEN, out.stdout
    assert out.stdout.count("no hidden tests") == 1 and "Traceback" not in out.stderr
    assert "[PASS] Exercise 0.1 — Add one  (visible tests passed)" in out.stdout, out.stdout
    # a pack has no hidden tests to run: nothing tells the learner to ask for them, and no points are shown
    assert "--hidden" not in out.stdout and "score" not in out.stdout, out.stdout

    out = autograder("release", cwd=pack)
    assert out.returncode == 0, out.stdout + out.stderr
    kept = list(notebook(pack).parent.glob(f"{NAME}.mine-*.ipynb"))
    assert len(kept) == 1 and answer_of(kept[0]) == attacks.CORRECT_1, out.stdout


# ---------------------------------------------------------------- nbgrader's checksums


def test_released_cells_carry_the_checksums_nbgrader_records(released):
    """Every released cell's checksum is nbgrader's for its source, and the gradebook's for each locked
    cell, except the test cells with hidden tests (the gradebook keeps them whole)."""
    from nbgrader import utils
    from nbgrader.api import Gradebook

    nb = course.read(notebook(released))
    with Gradebook(f"sqlite:///{released / 'gradebook.db'}") as gb:
        for cell in nb.cells:
            gid = course.grade_id(cell)
            if not gid:
                continue
            recorded = gb.find_source_cell(gid, NAME, NAME)
            assert cell.metadata.nbgrader["checksum"] == utils.compute_checksum(cell), gid
            if recorded.locked and not course.Markers().hides_tests(recorded.source):
                assert recorded.checksum == utils.compute_checksum(cell), gid
            assert utils.compute_checksum(nbformat_cell(cell, recorded.source)) == recorded.checksum, gid


def nbformat_cell(cell, source):
    import copy

    other = copy.deepcopy(cell)
    other.source = source
    return other


@pytest.mark.slow
def test_stock_autograde_restores_hidden_tests_without_a_checksum_warning(fx):
    from attacks import gradebook_scores

    for student, answers, tamper in (("honest", attacks.answers(attacks.CORRECT_1, attacks.CORRECT_2), False),
                                     ("tamper", attacks.answers(attacks.CORRECT_1, attacks.CORRECT_2), True)):
        dest = fx / "submitted" / student / NAME
        dest.mkdir(parents=True)
        shutil.copy(notebook(fx), dest / f"{NAME}.ipynb")
        set_answers(dest / f"{NAME}.ipynb", answers)
        if tamper:
            set_answers(dest / f"{NAME}.ipynb", {"ex0_1_tests": "assert True"})

    def autograde():
        return run_tool([sys.executable, "-m", "nbgrader", "autograde", NAME, "--force",
                         "--GradeInSandbox.trusted_input=True"], fx)

    out = autograde()  # the course's configuration: autograder.adapters.hiddentests in nbgrader's sanitize steps
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    warned = [line for line in out.stderr.splitlines() if "Attribute 'checksum'" in line]
    assert len(warned) == 1 and "ex0_1_tests" in warned[0], out.stderr[-3000:]  # the tampered cell only
    scores = gradebook_scores(fx)
    assert scores["honest"] == 3 and scores["tamper"] == 3, scores  # hidden tests restored and run for both

    config = fx / "nbgrader_config.py"
    shipped = config.read_text()
    assert "c.Autograde.sanitize_preprocessors = sanitize_steps()" in shipped
    config.write_text(shipped.replace("c.Autograde.sanitize_preprocessors = sanitize_steps()", ""))
    stock = autograde()
    assert stock.returncode == 0, stock.stdout[-3000:] + stock.stderr[-3000:]
    # nbgrader's own step: every test cell with hidden tests, in both submissions
    assert stock.stderr.count("Attribute 'checksum'") == 4, stock.stderr[-3000:]
    scores = gradebook_scores(fx)
    assert scores["honest"] == 3 and scores["tamper"] == 3, scores  # hidden tests restored and run for both
