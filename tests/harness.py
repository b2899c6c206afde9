"""One kernel per notebook: run the solution once, then swap answer variants in and re-run tests.

Starting a kernel and importing torch costs seconds; an exercise has many
answer variants.  :class:`NotebookSession` pays that once per notebook: it runs
the reference solution in ``record`` mode, as grading runs it (its grade path,
:mod:`autograder.gradepath`) or top to bottom, keeps each test
cell's observations as the reference, then for every variant executes the
variant's answer cell and the exercise's original test cell in the same
kernel, and judges the outcome with the grader's own :func:`autograder.grading.steps.judge.verdict`.
After each variant the reference answer cell is re-run so that the next
variant starts from the reference state.

The kernel is the one grading runs (:class:`autograder.grading.execute.KernelSession`): in the sandbox
where there is one, started and driven as grading does, each hidden test given its seed in its own
block (:func:`autograder.grading.steps.arm.arm_hidden_tests`), never through the environment.
"""

from __future__ import annotations

import contextlib
import copy
import json
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from autograder import gradepath
from autograder.grading.coursedata import NotebookData
from autograder.grading.execute import KernelSession, Limits
from autograder.grading.workfolder import prepared
from autograder.grading.steps.judge import cell_outcome, verdict
from autograder.grading.steps.arm import arm_hidden_tests
from autograder.probe import statedigest
from autograder.sandbox import launch
from autograder.values import course, variants

ROOT = Path(__file__).resolve().parent.parent
ANSWERS = ROOT / "tests" / "answers"
SEED = 1234
SEED2 = 98765
MAX_PAYLOAD = 256 * 1024  # well inside the grader's 1 MiB of output per cell


@dataclass
class Outcome:
    passed: bool
    message: str
    hidden_ran: bool = False  # the hidden block ran (no error in the cell before it: the visible asserts passed)


@dataclass
class SolutionRun:
    errors: list[str] = field(default_factory=list)  # cells of the solution that raised
    references: dict[str, dict] = field(default_factory=dict)
    seen: dict[int, str] = field(default_factory=dict)  # each graded cell: what it saw (statedigest.report)


VARIANT_LINE = "# variant: "


def answer_variant(path: Path) -> dict:
    """The per-student variant an answer file is written for: its leading comment line
    ``# variant: {"PARAM": value}`` (JSON), or {} for the default variant."""
    for line in path.read_text().splitlines():
        if not line.startswith("#"):
            break
        if line.startswith(VARIANT_LINE):
            return json.loads(line[len(VARIANT_LINE):])
    return {}


def variant_files(notebook: str) -> dict[str, list[Path]]:
    """Each exercise's correct_*.py and wrong_*.py judged under the default variant.

    A copied_*.py is judged under the other per-student variants, where the default one it copies is not the
    learner's, and so is a wrong_*.py written for one of them (:func:`answer_variant`); both are
    tests/grading/test_variant_notebooks.py's."""
    base = ANSWERS / notebook
    if not base.is_dir():
        return {}
    return {d.name: sorted(p for p in d.glob("*.py") if not p.name.startswith("copied_") and not answer_variant(p))
            for d in sorted(base.iterdir()) if d.is_dir()}


def new_sandbox():
    """A sandbox as grading uses, where this machine has one (bubblewrap, root); else None, a plain kernel."""
    return launch.Sandbox() if launch.available() else None


class NotebookSession:
    def __init__(self, assignment: str, notebook: str | None = None, cell_timeout: float = 300,
                 variant: dict | None = None, top_to_bottom: bool = False):
        """``variant``: the per-student variant to run (:mod:`autograder.values.variants`; default: as written);
        ``top_to_bottom``: run every cell of the solution, not its grade path as grading does."""
        self.assignment = course.Assignment(assignment, ROOT)
        self.notebook = notebook or assignment
        self.markers = course.markers(ROOT)
        self.solution = variants.render(course.read(self.assignment.solution(self.notebook)), variant or {})
        self.release = variants.plant(variants.render(course.read(self.assignment.release(self.notebook)), variant or {}),
                                      self.solution, variant or {}, self.markers)
        self.exercises = course.exercises(self.solution)
        # what grading runs for the reference: each hidden test armed with its own seed
        self.armed = arm_hidden_tests(copy.deepcopy(self.solution), SEED, self.markers,
                                      variant=variants.bound(self.solution))
        self.path = gradepath.grade_path(self.armed)
        self.top_to_bottom = top_to_bottom
        self.cell_timeout = cell_timeout
        # one kernel serves every answer variant of the notebook: the per-cell limits are grading's, the
        # whole-notebook ones (CPU seconds, output kept) grow to a session that runs the notebook many times
        self.limits = Limits(cell_timeout=cell_timeout, notebook_timeout=6 * 3600.0,
                             max_notebook_output_kb=1 << 20)
        self._stack = None
        self.kernel = None

    # -- kernel -------------------------------------------------------------------------
    def __enter__(self) -> "NotebookSession":
        self._stack = contextlib.ExitStack()
        try:
            sandbox = new_sandbox()
            # the work folder every run gets (grading's and the reference's alike), and its kernel's environment
            self.workdir, env = self._stack.enter_context(prepared(
                NotebookData.loaded(self.assignment, self.notebook), sandbox, f"harness-{self.assignment.name}-"))
            self.nb = copy.deepcopy(self.armed)
            self.kernel = KernelSession(self.workdir, nb=self.nb, env=env,
                                        limits=self.limits, sandbox=sandbox)
            self._stack.enter_context(self.kernel)
        except BaseException:
            self._stack.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self._stack.close()

    def _run_cell(self, cell, index: int):
        stopped = self.kernel.run_cell(cell, index)
        if stopped:
            raise RuntimeError(f"{self.notebook}, cell {index}: {stopped}")
        return cell

    def run(self, source: str, nbgrader: dict | None = None):
        cell = nbformat.v4.new_code_cell(source)
        if nbgrader:
            cell.metadata["nbgrader"] = copy.deepcopy(nbgrader)
        self.nb.cells.append(cell)
        return self._run_cell(cell, len(self.nb.cells) - 1)  # as grading runs it

    # -- steps --------------------------------------------------------------------------
    def run_solution(self) -> SolutionRun:
        """Run the solution as grading does (its grade path; every cell with ``top_to_bottom``), and record
        what each graded cell saw just before it ran (:func:`autograder.probe.statedigest.report` of the names
        it reads), for :func:`autograder.gradepath.differences`."""
        out = SolutionRun()
        cells = list(self.nb.cells)
        for i, cell in enumerate(cells):
            if cell.cell_type != "code":
                continue
            if not self.top_to_bottom and i not in self.path.cells:
                cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=gradepath.OFF_PATH_NOTE)]
                continue
            if i in self.path.inputs:
                out.seen[i] = self.kernel.evaluate(statedigest.expression(self.path.inputs[i]))
            self._run_cell(cell, i)
            for o in cell.outputs:
                if o.get("output_type") == "error":
                    out.errors.append(f"cell {i} ({course.grade_id(cell) or 'code'}): {o.get('ename')}: {o.get('evalue')}")
        for ex in self.exercises:
            entry = cell_outcome(cells[ex.test_cell], ex.id)
            if entry.error or not entry.payload:
                out.errors.append(f"{ex.id}: reference test cell failed: {entry.error or 'no observations'}")
            elif len(json.dumps(entry.payload)) > MAX_PAYLOAD:
                out.errors.append(f"{ex.id}: hidden observations take more than {MAX_PAYLOAD >> 10} KiB; "
                                  "graded runs keep 1 MiB of output per cell: observe slices and summaries")
            else:
                out.references[ex.id] = entry.payload
        self.references = out.references
        return out

    def _test_cell(self, ex: course.Exercise):
        return self.armed.cells[ex.test_cell]

    def rerun_tests(self, ex: course.Exercise):
        tc = self._test_cell(ex)
        cell = self.run(tc.source, course.nbgrader_meta(tc))
        return cell_outcome(cell, ex.id)

    def try_answer(self, ex: course.Exercise, source: str, hidden_only: bool = False) -> Outcome:
        """Execute ``source`` as the exercise's answer cell, then its tests (or only the hidden block);
        restore the reference after."""
        try:
            self.run(source)
            if hidden_only:
                block = self.markers.hidden_block(self._test_cell(ex).source)  # its seed included
                entry = cell_outcome(self.run(block), ex.id)
            else:
                entry = self.rerun_tests(ex)
            ok, message, _ = verdict(entry, self.references.get(ex.id))
            return Outcome(ok, message, entry.payload is not None)
        finally:
            self.restore(ex)

    def restore(self, ex: course.Exercise) -> None:
        # the variant's values first: an answer may have bound a parameter again (tests/grading/test_variant_notebooks.py)
        for cell in self.solution.cells:
            if variants.is_variant_cell(cell):
                self.run(cell.source)
        for i in ex.solution_cells:
            self.run(self.solution.cells[i].source)

    def stub_source(self, ex: course.Exercise) -> str:
        by_id = {course.grade_id(c): c for c in self.release.cells}
        return by_id[f"{ex.id}_solution"].source

    def payload_with_seed(self, ex: course.Exercise, seed: int) -> dict | None:
        """The observations of the exercise's test cell armed with ``seed`` instead of the session's."""
        one = nbformat.v4.new_notebook(cells=[copy.deepcopy(self.solution.cells[ex.test_cell])])
        tc = arm_hidden_tests(one, seed, self.markers, variant=variants.bound(self.solution)).cells[0]
        return cell_outcome(self.run(tc.source, course.nbgrader_meta(tc)), ex.id).payload


VISIBLE_MARK = "# caught by the visible tests"


def caught_by_visible(source: str) -> bool:
    """A wrong answer whose first line is :data:`VISIBLE_MARK` must fail the learner's visible tests too:
    the bug its section teaches shows in the learner's own feedback, not only in the grade."""
    return source.lstrip().startswith(VISIBLE_MARK)


def numeric_seed_dependent(p1: dict, p2: dict) -> bool:
    """Whether some tensor/float observation changed between two seeds."""
    v2 = {o["name"]: o["value"] for o in p2.get("observations", [])}

    def numeric(v):
        return v.get("t") == "float" or (v.get("t") == "tensor" and ("float" in v["dtype"] or "int" in v["dtype"])) \
            or (v.get("t") in ("list", "dict") and any(numeric(x) for x in (v["v"].values() if isinstance(v["v"], dict) else v["v"])))

    for o in p1.get("observations", []):
        if numeric(o["value"]) and o["name"] in v2 and v2[o["name"]] != o["value"]:
            return True
    return False
