"""The debugging exam (notebook 13) as an exam: every planted bug is silent and harmful, a submission that keeps a
bug while it games what the tests observe gets what the plain bug gets, and a message names every cause of what
it observes.

* Every planted bug, with the spec it is drawn with, leaves the whole script running to its end without an
  error on the CPU (the text says the script runs float16 with its scaler on every runner, so nothing in it is
  left to a GPU), and changes what the script computes: its weights, learning rates or the numbers it reports.
  The fixed script ends above the text's ``TARGET`` under every spec.
* Gamed submissions: a part that keeps its bug and makes the test's own observation of it come out right,
  by patching torch (``tests/exam_gamed/``: ``torch.equal`` wrapped, ``torch.is_grad_enabled`` or
  ``torch.load`` patched) or by telling the test's stand-in for ``train_step`` from the script's own (its name,
  its identity, its code's name: ``tests/answers/13_debugging_exam/ex13_5/wrong_*_unless_stand_in_*.py``), is
  graded as the plain bug is (``# plain:`` names it), in full and on the hidden tests alone.
* Part 6 observes each object of the checkpoint on its own: an answer that forgets one object fails only
  checks whose concept names that object.
"""

from __future__ import annotations

import contextlib
import io
import math
from pathlib import Path

import pytest
from harness import ANSWERS, ROOT, NotebookSession

from autograder.grading.steps.judge import cell_outcome
from autograder.values import comparison, course, variants

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("exam")]

A = NB = "13_debugging_exam"
GAMED = ROOT / "tests" / "exam_gamed"
MARKERS = course.markers(ROOT)
SOLUTION = course.read(course.Assignment(A, ROOT).solution(NB))
PATCHED = ("equal", "is_grad_enabled", "load")  # what the gamed submissions replace in torch


def script(values: dict, bug: tuple[str, str] | None = None) -> str:
    """The whole script as a student of ``values``' draw runs it (code cells, no test cells), every part fixed
    but the one ``bug`` names (exercise, bug), which holds it as handed out."""
    spec = variants.cell_values(SOLUTION, values)
    parts = []
    for cell in variants.render(SOLUTION, spec).cells:
        if cell.cell_type != "code" or course.is_tests(cell):
            continue
        source = cell.source
        if variants.plants(cell):
            planted = bug is not None and course.exercise_of(cell) == bug[0]
            source = variants.planted_source(source, variants.plants(cell)[bug[1]] if planted else [], MARKERS, spec)
        parts.append(source)
    return "\n\n".join(parts)


def run_script(values: dict, bug: tuple[str, str] | None = None) -> dict:
    """Run it on the CPU in this process, its plots drawn nowhere; the names it bound."""
    import matplotlib

    matplotlib.use("Agg")
    space = {"__name__": "exam_script"}
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        exec(compile(script(values, bug), f"{NB} ({bug})", "exec"), space)  # noqa: S102 - the course's own script
    import matplotlib.pyplot as plt

    plt.close("all")
    return space


def test_every_planted_bug_runs_to_the_end_and_changes_what_the_script_computes():
    problems = []
    for values in variants.draws(SOLUTION):
        fixed = run_script(values)
        if not fixed["history"]["val_acc"][-1] > fixed["TARGET"]:
            problems.append(f"{variants.cell_values(SOLUTION, values)}: the fixed script ends at "
                            f"{fixed['history']['val_acc'][-1]:.4f}, not above TARGET = {fixed['TARGET']}")
        for cell in SOLUTION.cells:
            if not variants.plants(cell):
                continue
            bug = (course.exercise_of(cell), values[variants.plant_param(cell)])
            try:
                broken = run_script(values, bug)
            except Exception as exc:  # noqa: BLE001 - any error at all makes the bug loud: that is the finding
                problems.append(f"{bug}: the script raised {type(exc).__name__}: {exc}"[:300])
                continue
            moved = {k: max(abs(a - b) if math.isfinite(a - b) else math.inf
                            for a, b in zip(broken["history"][k], fixed["history"][k]))
                     for k in fixed["history"]}
            if not any(moved.values()):
                problems.append(f"{bug}: the script computes the same history with the bug as without it")
    assert not problems, "\n".join(problems)


@pytest.fixture(scope="module")
def exam():
    with NotebookSession(A, NB) as s:
        run = s.run_solution()
        assert not run.errors, run.errors
        yield s


@contextlib.contextmanager
def torch_restored(s: NotebookSession):
    """What a gamed submission patches in torch is put back after it, so that it reaches no later answer (a
    grading kernel runs one submission only)."""
    s.run("_exam_saved_torch = {_n: getattr(torch, _n) for _n in " + repr(PATCHED) + "}")
    try:
        yield
    finally:
        s.run("for _n, _f in _exam_saved_torch.items():\n    setattr(torch, _n, _f)\ntorch.set_grad_enabled(True)")


def plain_of(path: Path) -> Path:
    first = path.read_text().splitlines()[0]
    assert first.startswith("# plain: "), f"{path.name}: no '# plain: exN_M/wrong_*.py' line"
    return ANSWERS / NB / first[len("# plain: "):]


GAMED_CASES = sorted(GAMED.glob("ex13_*.py")) + sorted((ANSWERS / NB / "ex13_5").glob("wrong_*_unless_stand_in_*.py"))


@pytest.mark.parametrize("path", GAMED_CASES, ids=[p.stem for p in GAMED_CASES])
def test_a_gamed_observation_gets_what_the_plain_bug_gets(exam, path):
    ex = next(e for e in exam.exercises if path.name.startswith(e.id) or path.parent.name == e.id)
    plain = plain_of(path) if path.parent == GAMED else ANSWERS / NB / ex.id / "wrong_loss_graph_kept.py"
    verdicts = {}
    for label, file in (("plain", plain), ("gamed", path)):
        for hidden_only in (False, True):
            with torch_restored(exam):
                verdicts[label, hidden_only] = exam.try_answer(ex, file.read_text(), hidden_only=hidden_only).passed
    assert not verdicts["plain", False] and not verdicts["plain", True], f"{plain.name} is no bug"
    assert verdicts["gamed", False] == verdicts["plain", False] and \
        verdicts["gamed", True] == verdicts["plain", True], f"{path.name} passes where {plain.name} fails"


def test_moving_the_targets_only_on_meta_is_graded_as_not_moving_them(exam):
    """The batches reach evaluate on the model's device, so whether it moves them changes nothing: the answer that
    moves the targets only on the meta device and the one that never moves them are graded alike."""
    ex = next(e for e in exam.exercises if e.id == "ex13_4")
    never = variants.planted_source(SOLUTION.cells[ex.solution_cells[0]].source, [], MARKERS)
    gamed = (ANSWERS / NB / "ex13_4" / "correct_moves_targets_only_on_meta.py").read_text()
    assert exam.try_answer(ex, never).passed == exam.try_answer(ex, gamed).passed


CHECKPOINT = {"wrong_optimizer_not_saved.py": "optimizer", "wrong_optimizer_not_loaded.py": "optimizer",
              "wrong_scheduler_not_saved.py": "scheduler", "wrong_scaler_not_saved.py": "scaler"}


@pytest.mark.parametrize("name,forgotten", sorted(CHECKPOINT.items()))
def test_a_checkpoint_that_forgets_one_object_is_told_about_that_object(exam, name, forgotten):
    """Where several causes give one observation, its concept names them all; where it has one cause, only it."""
    ex = next(e for e in exam.exercises if e.id == "ex13_6")
    try:
        exam.run((ANSWERS / NB / "ex13_6" / name).read_text())
        block = exam.markers.hidden_block(exam.armed.cells[ex.test_cell].source)
        payload = cell_outcome(exam.run(block), ex.id).payload
    finally:
        exam.restore(ex)
    verdict = comparison.judge(exam.references[ex.id], payload)
    failed = verdict.failures()
    assert failed, f"{name} passes"
    blamed = [f"{c.name}: {c.hint}" for c in failed if forgotten not in c.hint]
    assert not blamed, f"{name} forgets the {forgotten}, and these checks name other causes only:\n" + "\n".join(blamed)


def numeric(value: dict) -> bool:
    """Whether a recorded value holds a number (a float, or a tensor), which code cannot forge without working
    it out; a flag or a string it can."""
    kind = value.get("t")
    if kind in ("float", "tensor"):
        return True
    if kind == "list":
        return any(numeric(v) for v in value["v"])
    if kind == "dict":
        return any(numeric(v) for v in value["v"].values())
    return False


def test_every_planted_bug_changes_a_recorded_number(exam):
    """A planted bug must change a number the hidden tests record, not only a flag: a flag can be forged by code
    that rewrites the kernel's records (docs/security.md), a seed-dependent number only by working it out."""
    problems = []
    for ex in exam.exercises:
        cell = SOLUTION.cells[ex.solution_cells[0]]
        for bug in variants.plants(cell):
            try:
                exam.run((ANSWERS / NB / ex.id / f"wrong_{bug}.py").read_text())
                block = exam.markers.hidden_block(exam.armed.cells[ex.test_cell].source)
                payload = cell_outcome(exam.run(block), ex.id).payload
            finally:
                exam.restore(ex)
            reference = {o["name"]: o["value"] for o in exam.references[ex.id]["observations"]}
            failed = comparison.judge(exam.references[ex.id], payload).failures()
            if not [c for c in failed if numeric(reference[c.name])]:
                problems.append(f"{ex.id}/{bug}: fails only {[c.name for c in failed]}, none of them a number")
    assert not problems, "\n".join(problems)


TRUSTED = r"""
import autograder.probe.kernelinit  # as a grading kernel starts, before any learner code
import json, os, sys, tempfile
import torch
from torch.utils._python_dispatch import TorchDispatchMode
from autograder.probe import encode, trusted

# the learner's code: torch's functions replaced, a dispatch mode left running that zeroes every float result,
# a tensor subclass whose __torch_function__ lies
torch.is_grad_enabled = lambda: False
torch.Tensor.tolist = lambda self: [0.0] * self.numel()
_load = torch.load
torch.load = lambda f, *a, weights_only=None, **k: _load(f, *a, weights_only=False, **k)


class Zero(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        return out.zero_() if isinstance(out, torch.Tensor) and out.is_floating_point() else out


class Liar(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return [9.0]


real = torch.tensor([[1.5, -2.5]])
liar = torch.tensor([0.5]).as_subclass(Liar)
path = os.path.join(tempfile.mkdtemp(), "ck.pt")
torch.save({"optimizer": torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=0.1)}, path)
Zero().__enter__()
print(json.dumps({"real": encode(real), "liar": encode(liar), "grad": trusted.grad_enabled(),
                  "loads": trusted.load_in_fresh_python(path), "load_here": sorted(torch.load(path, weights_only=True))}))
"""


def test_what_a_test_reads_ignores_what_the_learners_code_did_to_torch(tmp_path):
    """The kernel side reads tensors, the grad mode and what weights_only=True makes of a file with what torch was
    at kernel start: replaced functions, a dispatch mode left on and a lying subclass change none of it."""
    import json
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", TRUSTED], capture_output=True, text=True, cwd=tmp_path,
                         env={**__import__("os").environ, "PYTHONPATH": str(ROOT)}, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    found = json.loads(out.stdout.strip().splitlines()[-1])
    assert found["real"] == {"t": "tensor", "dtype": "torch.float32", "shape": [1, 2], "data": [1.5, -2.5]}
    assert found["liar"]["data"] == [0.5]
    assert found["grad"] is True
    assert found["load_here"] == ["optimizer"]  # the learner's process takes the pickled optimizer ...
    assert found["loads"] == [None]  # ... torch.load(weights_only=True) itself refuses it
