"""The short run: which cells a grade depends on (static reading), and that skipping the others
changes no verdict (the proof on the reference, the full-run fallback, ``--full``).

The slice is checked on small made-up notebooks, one hazard each; the grading path on a real
course notebook, through :func:`autograder.commands.check.check`, the call ``autograder check`` makes."""

from __future__ import annotations

import json

import nbformat
import pytest
from support import ROOT, set_answers

from autograder.probe import statedigest
from autograder.shortrun.cellfacts import analyze
from autograder.shortrun.dependencies import needed
from autograder.values import course


def kept(cells: list[str], roots: list[int]) -> set[int]:
    return needed(cells, {i: "root" for i in roots}).keep


# ------------------------------------------------------------------ the static slice

def test_a_demo_nothing_reads_is_skipped_and_a_definition_is_kept():
    cells = ["import torch", "x = torch.ones(3)", "demo = torch.randn(1000, 1000) @ torch.randn(1000, 1000)",
             "print(demo.sum())", "assert x.sum() == 3"]
    assert kept(cells, [4]) == {0, 1, 4}


def test_a_rebinding_ends_what_came_before():
    cells = ["x = 1", "x = x + 1", "x = 10", "assert x == 10"]
    assert kept(cells, [3]) == {2, 3}
    cells = ["x = [1]", "x.append(2)", "assert x == [1, 2]"]
    assert kept(cells, [2]) == {0, 1, 2}


def test_a_write_through_another_name_is_followed():
    cells = ["import torch", "model = torch.nn.Linear(2, 1)",
             "opt = torch.optim.SGD(model.parameters(), lr=0.1)",
             "model(torch.ones(1, 2)).sum().backward()\nopt.step()",
             "unrelated = 3",
             "print(model.weight)"]
    assert {1, 2, 3} <= kept(cells, [5]) and 4 not in kept(cells, [5])
    cells = ["import torch", "w = torch.zeros(3)", "v = w.view(3)", "v.add_(1)", "print(w)"]
    assert 3 in kept(cells, [4])
    cells = ["items = []", "t = [0]", "items.append(t)", "t.append(1)", "print(items)"]
    assert 3 in kept(cells, [4])


def test_a_function_reads_its_globals_when_it_is_called():
    cells = ["scale = 2", "def f(v):\n    return v * scale", "scale = 3", "assert f(1) == 3"]
    assert kept(cells, [3]) == {0, 1, 2, 3}  # f may be called between its definition and cell 2
    cells = ["def f(v):\n    return v * scale", "scale = 2", "demo = f(5)", "scale = 3", "assert f(1) == 3"]
    assert kept(cells, [4]) == {0, 1, 3, 4}


def test_a_loop_reads_what_it_accumulates():
    cells = ["total = 0", "for i in range(3):\n    total = total + i", "assert total == 3"]
    assert kept(cells, [2]) == {0, 1, 2}


def test_names_bound_before_use_in_the_same_cell_are_not_reads():
    f = analyze("try:\n    fig, ax = make()\n    ax.plot(1)\nexcept RuntimeError as err:\n    print(err)")
    assert f.reads == {"make", "RuntimeError", "print"}


def test_timing_magics_are_read_as_code_and_other_magics_are_kept():
    assert {"f", "x"} <= analyze("%timeit f(x)").reads
    assert analyze("%%bash\necho hi > file.txt").always
    assert analyze("!ls").always
    assert not analyze("x = 1  # 50% of it").always


def test_what_changes_the_process_is_always_kept():
    assert analyze("import torch").always
    assert analyze("torch.use_deterministic_algorithms(True)").always
    assert not analyze("g = torch.Generator().manual_seed(0)").always
    assert analyze("torch.manual_seed(0)\nx = torch.randn(3)").leading_seeds == {"torch", "cuda"}


def test_an_import_that_only_binds_names_is_kept_only_for_what_reads_them():
    assert not analyze("import timeit\nt = timeit.timeit('1', number=1)").always
    assert not analyze("from collections import Counter").always
    for src in ("import os", "import math, torch", "from . import helpers", "import json\nimport sklearn"):
        assert analyze(src).always == "imports", src
    cells = ["import torch", "import timeit\nt = timeit.timeit('1', number=3)", "x = torch.ones(2)", "print(x)"]
    assert kept(cells, [3]) == {0, 2, 3}
    assert 1 in kept(cells + ["print(t, timeit)"], [4])


def test_a_hidden_test_body_reads_now_and_an_ordinary_function_reads_when_called():
    hidden = ("from autograder.probe import hidden_test\n@hidden_test('ex')\ndef _(obs):\n"
              "    obs.value('v', f(table))\n")
    cells = ["def f(t):\n    return len(t)", "table = [1, 2]", hidden, "table.append(3)", "print('end')"]
    assert kept(cells, [2, 4]) == {0, 1, 2, 4}  # the hidden body has run: appending later changes nothing graded
    ordinary = hidden.replace("@hidden_test('ex')\n", "")
    assert 3 in kept(cells[:2] + [ordinary] + cells[3:], [2, 4])  # `_` could be called after the append


def test_a_setting_passed_by_keyword_links_nothing():
    cells = ["device = 'cpu'", "import torch", "a = torch.ones(2, device=device)", "b = torch.zeros(2, device=device)",
             "a.add_(1)", "print(b, device)"]
    assert kept(cells, [5]) == {0, 1, 3, 5}


# ------------------------------------------------------------------ fingerprints and generators

def test_fingerprints_follow_contents_not_identity():
    import torch

    a, b = torch.nn.Linear(3, 2), torch.nn.Linear(3, 2)
    b.load_state_dict(a.state_dict())
    assert statedigest.value(a) == statedigest.value(b)
    with torch.no_grad():
        b.weight[0, 0] += 1
    assert statedigest.value(a) != statedigest.value(b)
    assert statedigest.value([1, {"k": torch.ones(2)}]) == statedigest.value([1, {"k": torch.ones(2)}])
    assert statedigest.value(torch.ones(2)) != statedigest.value(torch.ones(2, dtype=torch.float64))


def test_generators_are_restored_only_from_where_the_reference_had_them(tmp_path, monkeypatch):
    import torch

    monkeypatch.chdir(tmp_path)  # a snapshot fingerprints the working folder's files too

    torch.manual_seed(0)
    before = statedigest.rng()
    torch.randn(5)
    after = json.loads(statedigest.snapshot_json())
    expected = torch.randn(3)
    torch.manual_seed(0)
    assert statedigest.restore({"torch": before["torch"]}, {"torch": after["raw"]["torch"]}) == "ok"
    assert torch.equal(torch.randn(3), expected)
    torch.manual_seed(1)  # elsewhere than the reference was: nothing moves
    state = torch.get_rng_state()
    assert statedigest.restore({"torch": before["torch"]}, {"torch": after["raw"]["torch"]}).startswith("diverged")
    assert torch.equal(torch.get_rng_state(), state)


# ------------------------------------------------------------------ the proof catches what reading missed

def _cell(source: str, grade_id: str | None = None, solution: bool = False):
    cell = nbformat.v4.new_code_cell(source)
    if grade_id:
        cell.metadata["nbgrader"] = {"grade_id": grade_id, "solution": solution, "grade": not solution,
                                     "locked": not solution, "schema_version": 3,
                                     **({} if solution else {"points": 1})}
    return cell


def _prove(nb, folder):
    """The grader's proof on a made-up notebook: (what it skips, the marked short run, what differs)."""
    from autograder import shortrun
    from autograder.grading.execute import execute

    expressions = shortrun.reference_fingerprints(nb, nb)
    full = execute(nb, folder, fingerprints=expressions)
    skip, _ = shortrun.select(nb, nb)
    plan = shortrun.plan_from(nb, nb, skip, full.fingerprints)
    marked = shortrun.mark(nb, skip, plan, nb)
    short = execute(marked, folder, fingerprints=shortrun.short_fingerprints(nb, expressions))
    return skip, marked, shortrun.compare(nb, full.fingerprints, short.fingerprints, skip)


def test_the_proof_names_the_graded_cell_that_saw_a_write_reading_missed(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[
        _cell("import torch\nk = 1"),
        _cell("def f():\n    return k + 1", "ex_solution", solution=True),
        _cell("globals()['k'] = 2"),  # no reading of the source sees this write
        _cell("assert f() > 0", "ex_tests"),
    ])
    skip, _, said = _prove(nb, tmp_path)
    assert skip == {2}
    assert said and said.startswith("before cell 3 (ex_tests), the value of k differs") and "[2]" in said, said


def test_a_skipped_draw_is_replaced_by_the_generators_it_would_leave(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[
        _cell("import torch\ntorch.manual_seed(0)"),
        _cell("def f():\n    return torch.rand(1).item()", "ex_solution", solution=True),
        _cell("noise = torch.rand(1000)\ngetattr(torch, 'manual_' + 'seed')(5)"),  # a draw and a hidden reseed
        _cell("value = f()\nassert 0 <= value < 1", "ex_tests"),
    ])
    skip, marked, said = _prove(nb, tmp_path)
    assert skip == {2}
    assert "restore" in marked.cells[2].metadata["autograder"]["then"]
    assert said is None, said  # the test cell draws the very numbers it draws in the full run


def test_a_test_cell_leaves_the_generators_as_it_found_them(tmp_path):
    """However far a test cell gets (a stub stops at its first assert), and whatever it draws or
    reseeds, the next cell draws the same numbers."""
    from autograder.grading.execute import execute

    def later_draw(test_source: str) -> str:
        nb = nbformat.v4.new_notebook(cells=[
            _cell("import torch\ntorch.manual_seed(3)"),
            _cell("def f():\n    return None", "ex_solution", solution=True),
            _cell(test_source, "ex_tests"),
            _cell("print(torch.rand(2).tolist())"),
        ])
        res = execute(nb, tmp_path)
        return res.nb.cells[3].outputs[0]["text"]

    passing = later_draw("torch.manual_seed(0)\n_x = torch.randn(100)\nassert True")
    stopped = later_draw("assert f() is not None, 'not yet'\n_x = torch.randn(100)")
    untouched = later_draw("assert True")
    assert passing == stopped == untouched


# ------------------------------------------------------------------ grading: short, fallback, --full

NOTEBOOK = "01_tensors"


@pytest.fixture(scope="module")
def answered(tmp_path_factory):
    """Copies of notebook 01 in a copy of the course: every answer right; one answer wrong; and the same wrong
    answer in code that also reads the namespace without naming what it reads."""
    root = course.copy_course(ROOT, tmp_path_factory.mktemp("course") / "course", ("source", "release"))
    a = course.Assignment(NOTEBOOK, root)
    solution = course.read(a.solution(NOTEBOOK))
    answers = {course.grade_id(c): c.source for c in solution.cells if course.is_solution(c)}
    right = a.release(NOTEBOOK)
    set_answers(right, answers)
    wrong = root / "wrong" / right.name  # check finds the notebook by its name, inside the course
    wrong.parent.mkdir()
    wrong_answers = dict(answers)
    wrong_answers["ex1_2_solution"] = (ROOT / "tests" / "answers" / NOTEBOOK / "ex1_2").glob("wrong_*.py").__next__().read_text()
    right_copy = nbformat.read(right, 4)
    nbformat.write(right_copy, wrong)
    set_answers(wrong, wrong_answers)
    dynamic = root / "dynamic" / right.name
    dynamic.parent.mkdir()
    nbformat.write(right_copy, dynamic)
    set_answers(dynamic, {**wrong_answers, "ex1_2_solution": wrong_answers["ex1_2_solution"] + "\n_names = sorted(globals())\n"})
    return root, right, wrong, dynamic


@pytest.mark.slow
@pytest.mark.xdist_group("shortrun-01")
def test_short_run_matches_the_full_run_and_falls_back_on_a_failure(answered):
    from autograder.commands.check import check

    def verdicts(result):
        return [(e.id, e.status, e.score) for e in result.exercises]

    root, right, wrong, dynamic = answered
    short = check(right, hidden=True)
    assert short.run.startswith("short:"), short.run
    full = check(right, hidden=True, full=True)
    assert full.run == "full"
    assert verdicts(short) == verdicts(full)
    assert all(e.status == "passed" for e in short.exercises)

    # a wrong answer that reads only what it names: its failure in the short run is the full run's
    failing = check(wrong, hidden=True)
    assert failing.run.startswith("short:"), failing.run
    assert verdicts(failing) == verdicts(check(wrong, hidden=True, full=True))
    by_id = {e.id: e for e in failing.exercises}
    assert by_id["ex1_2"].status == "failed" and by_id["ex1_1"].status == "passed"
    # the same answer reading the namespace itself could see what a skipped cell left: graded again in full
    reread = check(dynamic, hidden=True)
    assert reread.run.startswith("full, after a short run") and "globals" in reread.run, reread.run
    assert verdicts(reread) == verdicts(failing)
    refs = list((root / ".cache" / "reference").glob(f"{NOTEBOOK}-*.json"))
    plans = [json.loads(p.read_text())["short"] for p in refs]
    assert any(p and p["skip_sources"] and not p["failure"] for p in plans), "the reference proved no short run"


@pytest.mark.slow
@pytest.mark.xdist_group("shortrun-01")
def test_the_autograded_notebook_says_which_cells_were_skipped(answered, tmp_path):
    from autograder.grading.coursedata import NotebookData
    from autograder.grading.execute import skip_reason
    from autograder.grading.pipeline import grade_notebook
    from autograder.grading.references import run_reference
    from autograder.probe import DEFAULT_SEED
    from autograder.shortrun import SKIPPED_NOTE

    root, right, *_ = answered
    data = NotebookData.load(course.Assignment(NOTEBOOK, root), NOTEBOOK)
    refs = run_reference(data, DEFAULT_SEED, cache_dir=root / ".cache" / "reference")  # check's, when it ran first
    assert refs.short and refs.short.ok, refs.short
    result, executed = grade_notebook(right, data, student_id="me", seed=DEFAULT_SEED, refs=refs)
    skipped = [c for c in executed.cells if c.cell_type == "code" and skip_reason(c)]
    assert skipped and result.run.startswith("short:")
    for c in skipped:
        assert c.outputs[0]["text"] == SKIPPED_NOTE
        assert "then" not in c.metadata["autograder"]  # the generators' states do not stay in the notebook
    graded = [c for c in executed.cells if course.grade_id(c)]
    assert graded and not any(skip_reason(c) for c in graded)


# ------------------------------------------------------------------ a skipped cell never runs the learner's code

def test_a_function_reads_what_its_own_cell_bound_before_it():
    cells = ["state = {'k': 1}\ndef step(x):\n    state['k'] = 0\n    return x", "demo = step(3)", "assert state['k'] == 1"]
    assert analyze(cells[0]).late_reads >= {"state"}
    assert 1 in kept(cells, [0, 2])


def test_a_global_rebinding_inside_a_function_changes_the_name_wherever_it_is_called():
    cells = ["k = 1\ndef step(x):\n    global k\n    k = 0\n    return x", "demo = step(3)", "assert k == 1"]
    assert analyze(cells[0]).global_writes == {"k"}
    assert 1 in kept(cells, [0, 2])
    cells = ["k = 1", "def step():\n    global k\n    k = 0", "step()", "assert k == 1"]  # k is a number, yet changed
    assert 2 in kept(cells, [3])


def learner_kept(cells: list[str], learner: set[int], tests: list[int]) -> set[int]:
    return needed(cells, {i: "root" for i in learner | set(tests)}, learner).keep


def test_a_cell_that_may_run_the_learners_code_is_kept_and_one_that_cannot_is_skipped():
    cells = ["import torch", "def f(x):\n    return x", "y = f(torch.ones(2))", "g = f", "z = g(1)",
             "noise = torch.randn(100)\nprint(noise.mean())", "assert f(1) == 1"]
    assert learner_kept(cells, {1}, [6]) == {0, 1, 2, 3, 4, 6}
    # learner code carried by an object: a method set on the instructor's model, a hook
    cells = ["import torch", "model = torch.nn.Linear(2, 2)", "model.register_forward_hook(lambda *a: None)",
             "out = model(torch.ones(2))", "other = torch.nn.Linear(2, 2)(torch.ones(2))", "assert True"]
    assert learner_kept(cells, {2}, [5]) == {0, 1, 2, 3, 5}
    # through an instructor function whose body reads what the learner made
    cells = ["import torch", "def f(x):\n    return x", "def demo():\n    return f(1)", "print(demo())", "assert True"]
    assert 3 in learner_kept(cells, {1}, [4])


@pytest.mark.parametrize("answer", [
    "torch.Tensor.mean = lambda self: self",  # a module's class
    "import builtins\nbuiltins.print = lambda *a: None",
    "import os\nos.environ['OMP_NUM_THREADS'] = '1'",
    "import os\ndef f():\n    e = os.environ\n    e['X'] = '1'\nf()",  # through a local name
    "from torch import Tensor\nT = Tensor\nT.mean = lambda self: self",
    "print = lambda *a: None",
    "def f():\n    global len\n    len = None",
    "torch = None",
    "import atexit\natexit.register(lambda: None)",
    "import torch.nn.modules.module as m\nm.register_module_forward_hook(lambda *a: None)",
    "import sys\nsys.meta_path.append(None)",
    "class E:\n    def __del__(self):\n        pass\nkeep = [E()]",
    "def f(x):\n    type(x).mean = None",
    "def f(x):\n    x.__class__.mean = None",
    "setattr(torch, 'ones', None)",
    "exec('import torch')",
    "import threading\nthreading.Thread(target=lambda: None).start()",
])
def test_learner_code_that_may_leave_code_where_no_name_leads_keeps_every_later_cell(answer):
    cells = ["import torch", answer + "\ndef f2(x):\n    return x", "noise = torch.randn(100)\nprint(noise.mean())",
             "assert f2(1) == 1"]
    assert 2 in learner_kept(cells, {1}, [3]), answer


@pytest.mark.parametrize("answer", [
    "class Net(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.fc = torch.nn.Linear(2, 2)\n"
    "        self.register_buffer('b', torch.zeros(2))",
    "def f(losses):\n    losses.append(1)\n    out = {}\n    out['k'] = 1\n    return out",
    "def f(model):\n    for p in model.parameters():\n        p.grad = None\n    return torch.nn.MaxPool2d(2)",
])
def test_ordinary_answers_leave_nothing_where_no_name_leads(answer):
    cells = ["import torch", answer, "noise = torch.randn(100)\nprint(noise.mean())", "assert True"]
    assert 2 not in learner_kept(cells, {1}, [3]), answer


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
    # no call at all: the pure demo's own .mean() runs code the answer cell left in torch
    "hook left in torch": "_mean = torch.Tensor.mean\ndef _m(self, *a, **k):\n    if self.numel() == 100:\n"
                          "        torch.set_default_dtype(torch.float64)\n    return _mean(self, *a, **k)\n"
                          "torch.Tensor.mean = _m\ndef step(x):\n    return x + 1",
}


@pytest.fixture(scope="module")
def demo_course(tmp_path_factory):
    """A course of one notebook whose demos call the learner's answer, and one pure demo."""
    import shutil

    root = tmp_path_factory.mktemp("demos") / "course"
    (root / "solutions" / "zz_demo").mkdir(parents=True)
    shutil.copy(ROOT / "nbgrader_config.py", root / "nbgrader_config.py")
    hidden = ("\n### BEGIN HIDDEN TESTS\nfrom autograder.probe import hidden_test\n\n@hidden_test('{ex}')\n"
              "def _(obs):\n    obs.value('r', {fn}(torch.randn(7, generator=obs.generator())))\n### END HIDDEN TESTS")
    nb = nbformat.v4.new_notebook(cells=[
        _cell("import torch"),
        _cell("def step(x):\n    ### BEGIN SOLUTION\n    return x + 1\n    ### END SOLUTION", "ex9_1_solution", True),
        _cell("demo = step(torch.zeros(3))\nprint(demo)"),
        # the pure demo stands for a training run: it takes long enough for a short run to be worth planning
        _cell("noise = torch.randn(100)\nprint(noise.mean())\nw = torch.randn(256, 256)\nfor _ in range(1000):\n"
              "    w = torch.tanh(w @ w / 16)\nprint(float(w.sum()))"),
        _cell("assert torch.equal(step(torch.zeros(2)), torch.ones(2))" + hidden.format(ex="ex9_1", fn="step"), "ex9_1_tests"),
        _cell("def twice(x):\n    ### BEGIN SOLUTION\n    return x * 2\n    ### END SOLUTION", "ex9_2_solution", True),
        _cell("assert torch.equal(twice(torch.ones(2)), 2 * torch.ones(2))" + hidden.format(ex="ex9_2", fn="twice"),
              "ex9_2_tests"),
    ])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, root / "solutions" / "zz_demo" / "zz_demo.ipynb")
    return root


@pytest.mark.slow
@pytest.mark.xdist_group("shortrun-hostile")
def test_the_short_run_gives_the_full_runs_grade_when_skipped_demos_would_run_the_learners_code(demo_course, tmp_path):
    from autograder.grading.coursedata import NotebookData
    from autograder.grading.execute import Limits
    from autograder.grading.pipeline import grade_notebook
    from autograder.grading.references import run_reference

    data = NotebookData.load(course.Assignment("zz_demo", demo_course), "zz_demo")
    refs = run_reference(data, 7, cache_dir=demo_course / ".cache" / "reference")
    assert refs.short and refs.short.ok, refs.short
    limits = Limits(cell_timeout=4, notebook_timeout=60)

    def graded(name: str, step: str, full: bool) -> tuple[list, str]:
        path = tmp_path / f"{name.replace(' ', '_')}.ipynb"
        nb = copy_of(data.release)
        for c in nb.cells:
            if course.grade_id(c) == "ex9_1_solution":
                c.source = step
            elif course.grade_id(c) == "ex9_2_solution":
                c.source = "def twice(x):\n    return x * 2"
        nbformat.write(nb, path)
        result, _ = grade_notebook(path, data, student_id="s", seed=7, refs=refs, limits=limits, full=full)
        return sorted((e.id, e.status, e.score) for e in result.exercises), result.run

    honest = "def step(x):\n    return x + 1"
    verdicts, run = graded("honest", honest, full=False)
    assert run.startswith("short:") and all(s == "passed" for _, s, _ in verdicts), run  # the pure demo is skipped
    for name, step in HOSTILE_STEPS.items():
        verdicts, run = graded(name, step, full=False)
        # the demo ran (or the whole notebook did): the answer's harm shows, as when the notebook runs top to bottom
        assert len(verdicts) == 2 and any(s != "passed" for _, s, _ in verdicts), (name, verdicts, run)
        assert run.startswith("full") or "1 of 7" in run, (name, run)
        if name == "hook left in torch":  # the run that counted is the full run's: the same verdicts
            assert graded(name, step, full=True)[0] == verdicts, name


def copy_of(nb):
    import copy

    return copy.deepcopy(nb)


# ------------------------------------------------------------------ when a failure in a short run stands

@pytest.mark.parametrize("source, reason", [
    ("def f(x):\n    return x * scale + offset", ""),
    ("import torch\ndef f(x):\n    return torch.relu(x)", ""),
    ("def f(x):\n    return globals()['scale'] * x", "globals"),
    ("def f(x):\n    return eval('scale') * x", "eval"),
    ("y = _ + 1", "_"),
    ("for _ in range(3):\n    pass\n_ = 2\ny = [_ for _ in range(2)]", ""),
    ("def f(xs):\n    return [x for x, _ in xs]", ""),
    ("def f():\n    return __", "__"),
    ("y = Out[3]", "Out"),
    ("y = _i3", "_i3"),
    ("import __main__\ny = __main__.scale", "__main__"),
    ("from sys import modules\ny = modules['__main__']", "sys"),
    ("def f():\n    return f.__globals__['scale']", "__globals__"),
    ("%who", "magic"),
    ("def f():\n    return torch.load('model.pt')", "load"),
    ("def f():\n    return open('data.txt').read()", "open"),
    ("import os\nk = os.environ['K']", "os"),
    ("def f(:", "parse"),
])
def test_a_learners_code_that_reads_what_it_does_not_name_is_seen(source, reason):
    from autograder.shortrun.cellfacts import reads_beyond_names

    found = reads_beyond_names(source)
    assert (found == "") if not reason else (reason in found), (source, found)
