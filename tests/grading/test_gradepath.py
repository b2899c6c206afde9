"""The grade path: which cells a grade runs (read from their sources), and what a grade defined on it means.

The rule is checked on small made-up notebooks, one case each; grading on a course of one made-up
notebook whose demos call the learner's code (hostile submissions, and answers that read the notebook's
namespace without naming what they read, by every spelling); and on a real course notebook through
:func:`autograder.commands.check.check`, the call ``autograder check`` makes.  That every course notebook's
path changes no honest verdict is ``tests/grading/test_notebooks.py``'s."""

from __future__ import annotations

import copy

import nbformat
import pytest
from support import ROOT, set_answers

from autograder import gradepath
from autograder.values import course


def _cell(source: str, grade_id: str | None = None, solution: bool = False):
    cell = nbformat.v4.new_code_cell(source)
    if grade_id:
        cell.metadata["nbgrader"] = {"grade_id": grade_id, "solution": solution, "grade": not solution,
                                     "locked": not solution, "schema_version": 3,
                                     **({} if solution else {"points": 1})}
    return cell


def on_path(cells: list, graded: dict[int, str]) -> set[int]:
    """The path of a notebook of ``cells`` (sources), the cells of ``graded`` (index -> "answer"/"tests") graded."""
    nb = nbformat.v4.new_notebook(cells=[
        _cell(src, f"ex0_{i}_{'solution' if graded[i] == 'answer' else 'tests'}", graded[i] == "answer")
        if i in graded else _cell(src) for i, src in enumerate(cells)])
    return gradepath.grade_path(nb).cells


# ------------------------------------------------------------------ the path, read from the sources

def test_a_demo_nothing_reads_is_off_the_path_and_what_a_test_reads_is_on_it():
    cells = ["import torch", "x = torch.ones(3)", "demo = torch.randn(1000, 1000) @ torch.randn(1000, 1000)",
             "print(demo.sum())", "assert x.sum() == 3"]
    assert on_path(cells, {4: "tests"}) == {0, 1, 4}


def test_a_demo_that_calls_the_learners_code_is_off_the_path():
    cells = ["import torch", "def step(x):\n    return x + 1", "demo = step(torch.zeros(3))\nprint(demo)",
             "assert step(1) == 2"]
    assert on_path(cells, {1: "answer", 3: "tests"}) == {1, 3}


def test_a_rebinding_ends_what_came_before():
    assert on_path(["x = 1", "x = x + 1", "x = 10", "assert x == 10"], {3: "tests"}) == {2, 3}
    assert on_path(["x = 1", "x = x + 1", "assert x == 2"], {2: "tests"}) == {0, 1, 2}


@pytest.mark.parametrize("change", ["xs.append(2)", "xs[0] = 5", "xs.sort()", "del xs[0]", "xs.add_(1)",
                                    "torch.nn.init.zeros_(xs)"])
def test_a_cell_that_changes_what_a_test_reads_is_on_the_path(change):
    cells = ["import torch", "xs = [1]", change, "unrelated = 3", "print(xs)"]
    assert on_path(cells, {4: "tests"}) == {1, 2, 4} | ({0} if "torch" in change else set()), change


def test_a_setting_changed_through_a_module_is_on_the_path_and_a_seed_is_not():
    cells = ["import torch", "torch.set_default_dtype(torch.float64)", "torch.manual_seed(0)\nnoise = torch.randn(9)",
             "assert torch.ones(1).dtype == torch.float64"]
    assert on_path(cells, {3: "tests"}) == {0, 1, 3}


def test_a_function_reads_its_globals_when_it_is_called():
    # f may be called after cell 2 rebinds scale: that cell is on the path, and so is the first binding
    cells = ["scale = 2", "def f(v):\n    return v * scale", "scale = 3", "demo = f(5)", "assert f(1) == 3"]
    assert on_path(cells, {1: "answer", 4: "tests"}) == {0, 1, 2, 4}
    # a test cell runs the functions it defines before it ends: a later rebinding is not what they read
    cells = ["scale = 2", "def _ex0_1_check():\n    assert scale == 2\n_ex0_1_check()", "scale = 3"]
    assert on_path(cells, {1: "tests"}) == {0, 1}


def test_a_hidden_test_body_reads_when_its_cell_runs():
    hidden = ("from autograder.probe import hidden_test\n@hidden_test('ex')\ndef _(obs):\n"
              "    obs.value('v', f(table))\n")
    cells = ["def f(t):\n    return len(t)", "table = [1, 2]", hidden, "table.append(3)"]
    assert on_path(cells, {0: "answer", 2: "tests"}) == {0, 1, 2}


def test_the_learners_own_cell_is_on_the_path_only_where_the_path_needs_it():
    cells = ["import torch", "def f(x):\n    return x * k", "k = 2  # the learner's own helper constant",
             "scratch = f(torch.ones(3))\nprint(scratch)", "assert f(1) == 2"]
    assert on_path(cells, {1: "answer", 4: "tests"}) == {1, 2, 4}


def test_a_file_written_by_a_magic_is_read_where_a_string_names_it():
    cells = ["%%writefile helper.py\ndef h():\n    return 1", "%%writefile unused.py\nx = 1",
             "import subprocess, sys\nout = subprocess.run([sys.executable, 'helper.py'])", "assert True"]
    assert on_path(cells, {2: "tests"}) == {0, 2}


def test_timing_magics_read_what_they_time_and_names_the_path_reads_are_its_inputs():
    cells = ["def f(x):\n    return x", "x = 3", "%timeit f(x)"]
    path = gradepath.grade_path(nbformat.v4.new_notebook(cells=[_cell(cells[0]), _cell(cells[1]),
                                                               _cell(cells[2], "ex0_1_tests")]))
    assert path.cells == {0, 1, 2} and path.inputs[2] == {"f", "x"}


# ------------------------------------------------------------------ grading on the path

SPELLINGS = {  # each asks, without naming it, whether the demo's `demo_result` exists
    "dir": "'demo_result' in _names",  # dir() at the top level of the answer cell, read into _names
    "globals": "'demo_result' in globals()",
    "vars": "'demo_result' in vars(__import__('__main__'))",
    "__main__": "hasattr(__import__('__main__'), 'demo_result')",
    "torch.sys.modules": "hasattr(torch.sys.modules['__main__'], 'demo_result')",
    "frames": "'demo_result' in __import__('inspect').currentframe().f_globals",
    "eval": "_evaluates('demo_result')",
    "IPython's history": "any(('demo' + '_result =') in s for s in In)",
}


@pytest.fixture(scope="module")
def demo_course(tmp_path_factory):
    """A course of one notebook: a pure demo that binds ``demo_result`` and takes time, a demo that calls
    exercise 1's answer, and one exercise per spelling of :data:`SPELLINGS` (exercises 2 on)."""
    import shutil

    root = tmp_path_factory.mktemp("demos") / "course"
    (root / "solutions" / "zz_demo").mkdir(parents=True)
    shutil.copy(ROOT / "nbgrader_config.py", root / "nbgrader_config.py")
    hidden = ("\n### BEGIN HIDDEN TESTS\nfrom autograder.probe import hidden_test\n\n@hidden_test('{ex}')\n"
              "def _(obs):\n    obs.value('r', {fn}(torch.randn(7, generator=obs.generator())))\n### END HIDDEN TESTS")
    cells = [
        _cell("import torch"),
        # the pure demo stands for a training run
        _cell("w = torch.randn(256, 256)\nfor _ in range(300):\n    w = torch.tanh(w @ w / 16)\n"
              "demo_result = float(w.sum())\nprint(demo_result)"),
        _cell("def step(x):\n    ### BEGIN SOLUTION\n    return x + 1\n    ### END SOLUTION", "ex9_1_solution", True),
        _cell("demo = step(torch.zeros(3))\nprint(demo)"),
        _cell("assert torch.equal(step(torch.zeros(2)), torch.ones(2))" + hidden.format(ex="ex9_1", fn="step"),
              "ex9_1_tests"),
    ]
    for k, _ in enumerate(SPELLINGS, start=2):
        cells += [_cell(f"def answer{k}(x):\n    ### BEGIN SOLUTION\n    return x * 2\n    ### END SOLUTION",
                        f"ex9_{k}_solution", True),
                  _cell(f"assert torch.equal(answer{k}(torch.ones(2)), 2 * torch.ones(2))"
                        + hidden.format(ex=f"ex9_{k}", fn=f"answer{k}"), f"ex9_{k}_tests")]
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, root / "solutions" / "zz_demo" / "zz_demo.ipynb")
    return root


@pytest.fixture(scope="module")
def demo_grading(demo_course):
    """grade(step, answers, full) -> (verdicts by exercise, the result's run, the executed notebook)."""
    from autograder.grading.coursedata import NotebookData
    from autograder.grading.execute import Limits
    from autograder.grading.pipeline import grade_notebook
    from autograder.grading.references import run_reference

    data = NotebookData.load(course.Assignment("zz_demo", demo_course), "zz_demo")
    refs = run_reference(data, 7, cache_dir=demo_course / ".cache" / "reference")
    assert refs.ok, refs.failure
    limits = Limits(cell_timeout=4, notebook_timeout=60)
    count = [0]

    def grade(step: str, answers: dict[int, str] | None = None, full: bool = False):
        count[0] += 1
        path = demo_course / "submitted" / f"s{count[0]}" / "zz_demo.ipynb"
        path.parent.mkdir(parents=True)
        nb = copy.deepcopy(data.release)
        for c in nb.cells:
            gid = course.grade_id(c)
            if gid == "ex9_1_solution":
                c.source = step
            elif gid and gid.endswith("_solution"):
                k = int(gid.split("_")[1])
                c.source = (answers or {}).get(k, f"def answer{k}(x):\n    return x * 2")
        nbformat.write(nb, path)
        result, executed = grade_notebook(path, data, student_id="s", seed=7, refs=refs, limits=limits, full=full)
        return {e.id: e.status for e in result.exercises}, result.run, executed

    return grade


HONEST = "def step(x):\n    return x + 1"
HOSTILE_STEPS = {  # exercise 1's answer: right, except when the demo calls it (the only call with 3 elements)
    "same-cell state": "state = {'k': 1}\ndef step(x):\n    if x.numel() == 3:\n        state['k'] = 0\n"
                       "    return x + state['k']",
    "global rebinding": "k = 1\ndef step(x):\n    global k\n    if x.numel() == 3:\n        k = 0\n    return x + k",
    "torch setting": "def step(x):\n    if x.numel() == 3:\n        torch.set_default_dtype(torch.float64)\n    return x + 1",
    "patched torch method": "def step(x):\n    if x.numel() == 3:\n        torch.Tensor.__mul__ = lambda a, b: a\n"
                            "    return x + 1",
    "module attribute": "def step(x):\n    if x.numel() == 3:\n        torch.equal = lambda a, b: False\n    return x + 1",
    "crash": "import os\ndef step(x):\n    if x.numel() == 3:\n        os._exit(3)\n    return x + 1",
    "timeout": "import time\ndef step(x):\n    while x.numel() == 3:\n        time.sleep(0.1)\n    return x + 1",
}


@pytest.mark.slow
@pytest.mark.xdist_group("gradepath-demo")
def test_off_the_path_cells_do_not_run_and_say_why(demo_grading):
    from autograder.grading.execute import skip_reason

    verdicts, run, executed = demo_grading(HONEST)
    assert set(verdicts.values()) == {"passed"} and run.startswith("path: "), (verdicts, run)
    off = [c for c in executed.cells if c.cell_type == "code" and skip_reason(c)]
    assert len(off) == 2 and {c.source.split("\n")[0] for c in off} == {"w = torch.randn(256, 256)",
                                                                         "demo = step(torch.zeros(3))"}
    assert all(c.outputs[0]["text"] == gradepath.OFF_PATH_NOTE for c in off)
    assert all(not skip_reason(c) and c.outputs is not None for c in executed.cells if course.grade_id(c))


@pytest.mark.slow
@pytest.mark.xdist_group("gradepath-demo")
def test_what_a_demo_would_do_with_hostile_code_changes_no_path_verdict(demo_grading):
    """Each answer is right on the tests' own inputs and harmful only when the demo calls it: the demo is off
    the path, so the path's verdict (passed) stands; top to bottom, the harm shows, and --full says so."""
    for name, step in HOSTILE_STEPS.items():
        verdicts, run, _ = demo_grading(step)
        assert verdicts["ex9_1"] == "passed", (name, verdicts, run)
    verdicts, run, _ = demo_grading(HOSTILE_STEPS["module attribute"], full=True)
    assert verdicts["ex9_1"] == "passed"
    assert "top to bottom: ex9_1 failed (0 points) top to bottom, passed (1) on the path" in run, run


@pytest.mark.slow
@pytest.mark.xdist_group("gradepath-demo")
def test_code_that_reads_the_namespace_without_naming_it_sees_the_path_for_passes_and_failures_alike(demo_grading):
    """One rule, whatever the spelling: the answer sees the namespace as the path left it (no demo_result),
    and its verdict is the path's, whether that makes it pass or fail; --full names every difference."""
    def answers(right_without_demo: bool) -> dict[int, str]:
        out = {}
        for k, (name, asks) in enumerate(SPELLINGS.items(), start=2):
            good, bad = ("x * 2", "x * 3") if right_without_demo else ("x * 3", "x * 2")
            out[k] = ("_names = dir()\n" if name == "dir" else "") + (
                "def _evaluates(n):\n    try:\n        eval(n)\n        return True\n    except NameError:\n"
                "        return False\n" if name == "eval" else "") + (
                f"def answer{k}(x):\n    return {bad} if {asks} else {good}")
        return out

    for right_without_demo, on_the_path, top_to_bottom in ((True, "passed", "failed"), (False, "failed", "passed")):
        verdicts, run, _ = demo_grading(HONEST, answers(right_without_demo), full=True)
        for k, name in enumerate(SPELLINGS, start=2):
            assert verdicts[f"ex9_{k}"] == on_the_path, (name, verdicts)
            assert f"ex9_{k} {top_to_bottom} " in run, (name, run)


@pytest.mark.slow
@pytest.mark.xdist_group("gradepath-demo")
def test_full_runs_top_to_bottom_beside_the_path_and_changes_no_grade(demo_grading):
    verdicts, run, executed = demo_grading(HONEST, full=True)
    assert set(verdicts.values()) == {"passed"}
    assert run.endswith("; top to bottom: the same verdicts"), run
    verdicts, run, _ = demo_grading(HOSTILE_STEPS["crash"], full=True)
    assert set(verdicts.values()) == {"passed"}, verdicts  # the kernel dies top to bottom only
    assert "it stopped early" in run and "the kernel died" in run, run


# ------------------------------------------------------------------ a course notebook, through `autograder check`

NOTEBOOK = "01_tensors"


@pytest.mark.slow
@pytest.mark.xdist_group("gradepath-01")
def test_check_grades_a_course_notebook_on_its_path_and_full_finds_the_same_verdicts(tmp_path_factory):
    from autograder.commands.check import check, summary

    root = course.copy_course(ROOT, tmp_path_factory.mktemp("course") / "course", ("source", "release"))
    a = course.Assignment(NOTEBOOK, root)
    solution = course.read(a.solution(NOTEBOOK))
    answers = {course.grade_id(c): c.source for c in solution.cells if course.is_solution(c)}
    answers["ex1_2_solution"] = next((ROOT / "tests" / "answers" / NOTEBOOK / "ex1_2").glob("wrong_*.py")).read_text()
    path = a.release(NOTEBOOK)
    set_answers(path, answers)
    result = check(path, hidden=True, full=True)
    by_id = {e.id: e.status for e in result.exercises}
    assert by_id["ex1_2"] == "failed" and by_id["ex1_1"] == "passed", by_id
    code_cells = sum(c.cell_type == "code" for c in solution.cells)
    assert result.run.startswith("path: ") and f" of {code_cells} code cells" in result.run, result.run
    assert result.run.endswith("; top to bottom: the same verdicts"), result.run
    assert "Grading runs your answer cells and what they need" in summary(result, hidden=True)
