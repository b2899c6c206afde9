"""One kernel per notebook: run the solution once, then swap answer variants in and re-run tests.

Starting a kernel and importing torch costs seconds; an exercise has many
answer variants.  :class:`NotebookSession` pays that once per notebook: it runs
the reference solution top to bottom in ``record`` mode, keeps each test
cell's observations as the reference, then for every variant executes the
variant's answer cell and the exercise's original test cell in the same
kernel, and judges the outcome with the grader's own :func:`autograder.grading.scoring.verdict`.
After each variant the reference answer cell is re-run so that the next
variant starts from the reference state.

The kernel is the one grading runs (:class:`autograder.grading.execute.KernelSession`): in the sandbox
where there is one, started and driven as grading does, each hidden test given its seed in its own
block (:func:`autograder.grading.submission.arm_hidden_tests`), never through the environment.
"""

from __future__ import annotations

import contextlib
import copy
import json
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from autograder import shortrun
from autograder.grading.execute import ExecResult, KernelSession, Limits, execute, skip_reason, work_folder
from autograder.grading.references import COMPILE_CACHE, compile_cache_env, prove_short, seed_compile_cache
from autograder.grading.scoring import cell_outcome, verdict
from autograder.grading.submission import arm_hidden_tests
from autograder.sandbox import launch
from autograder.values import course, learner_view, support, variants

ROOT = Path(__file__).resolve().parent.parent
ANSWERS = ROOT / "tests" / "answers"
SEED = 1234
SEED2 = 98765
MAX_PAYLOAD = 256 * 1024  # well inside the grader's 1 MiB of output per cell


@dataclass
class Outcome:
    passed: bool
    message: str


@dataclass
class SolutionRun:
    errors: list[str] = field(default_factory=list)  # cells of the solution that raised
    references: dict[str, dict] = field(default_factory=dict)


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
    tests/test_variant_notebooks.py's."""
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
                 variant: dict | None = None):
        """``variant``: the per-student variant to run (:mod:`autograder.values.variants`; default: as written)."""
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
            self.workdir = self._stack.enter_context(work_folder(sandbox, f"harness-{self.assignment.name}-"))
            support.copy_listed(self.assignment.solution_dir, support.listed(self.assignment.solution_dir),
                                self.workdir)
            self.nb = copy.deepcopy(self.armed)
            self.kernel = KernelSession(self.workdir, nb=self.nb, env=self.env(sandbox, self.workdir),
                                        limits=self.limits, sandbox=sandbox)
            self._stack.enter_context(self.kernel)
        except BaseException:
            self._stack.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self._stack.close()

    @staticmethod
    def env(sandbox, work: Path) -> dict[str, str]:
        """The kernel's environment as grading sets it: ``record`` mode, and sandboxed, the compile
        caches in the run's own folder (:func:`autograder.grading.references.compile_cache_env`)."""
        return {"AUTOGRADER_MODE": "record", **(compile_cache_env(work) if sandbox is not None else {})}

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
        """Run the solution top to bottom, the state fingerprinted before each cell as the grader's
        reference run does it (for :meth:`prove_short`)."""
        out = SolutionRun()
        cells = list(self.nb.cells)
        self.expressions = shortrun.reference_fingerprints(self.armed, self.release)
        self.full = ExecResult(self.nb)
        for i, cell in enumerate(cells):
            if cell.cell_type != "code":
                continue
            self.full.fingerprints[i] = self.kernel.evaluate(self.expressions[i])
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
        end = len(cells)
        self.full.fingerprints[end] = self.kernel.evaluate(self.expressions[end])
        self.references = out.references
        return out

    def prove_short(self):
        """The grader's release-time proof of the short run (:func:`autograder.grading.references.prove_short`),
        on this session's full run: the short run executes in a fresh kernel, sandboxed as this one is,
        same seed and folder contents (and the compile caches this session's run left)."""
        from autograder.grading.coursedata import NotebookData

        full = copy.copy(self.full)
        full.nb = nbformat.from_dict(copy.deepcopy(dict(self.nb, cells=self.nb.cells[:len(self.solution.cells)])))

        def run(nb, fingerprints):
            sandbox = new_sandbox()
            with work_folder(sandbox, "harness-short-") as tmp:
                support.copy_listed(self.assignment.solution_dir, support.listed(self.assignment.solution_dir), tmp)
                if sandbox is not None:
                    seed_compile_cache(tmp, self.workdir / COMPILE_CACHE)
                return execute(nb, tmp, env=self.env(sandbox, tmp), sandbox=sandbox, fingerprints=fingerprints)

        data = NotebookData.load(self.assignment, self.notebook)
        return prove_short(data, self.armed, full, self.expressions, run)

    def run_short(self, plan) -> list[int]:
        """Run the solution as the grader's short run does (:func:`autograder.shortrun.short_run`): the
        cells ``plan`` skips are not run, and the generators are moved where they would have left them.
        Returns the skipped cells.  Answers tried afterwards see the state a short-run submission sees."""
        marked, _ = shortrun.short_run(self.armed, self.release, plan)
        assert marked is not None, "the plan skips nothing in this notebook"
        self.nb.cells[:len(marked.cells)] = marked.cells
        skipped = []
        for i, cell in enumerate(marked.cells):
            if cell.cell_type != "code":
                continue
            if skip_reason(cell):
                skipped.append(i)
                said = self.kernel.skip_cell(cell)
                assert said == "ok", f"the short run of {self.notebook} abandoned at cell {i}: {said}"
                continue
            self._run_cell(cell, i)
        return skipped

    def _test_cell(self, ex: course.Exercise):
        return self.armed.cells[ex.test_cell]

    def rerun_tests(self, ex: course.Exercise):
        tc = self._test_cell(ex)
        cell = self.run(tc.source, course.nbgrader_meta(tc))
        return cell_outcome(cell, ex.id)

    def try_answer(self, ex: course.Exercise, source: str, hidden_only: bool = False,
                   visible_only: bool = False) -> Outcome:
        """Execute ``source`` as the exercise's answer cell, then its tests (or only the hidden block, or
        only the visible asserts, as the learner's copy has them); restore the reference after."""
        try:
            self.run(source)
            if visible_only:
                entry = cell_outcome(self.run(learner_view.visible_source(self._test_cell(ex))), ex.id)
                return Outcome(entry.ran and not entry.error, entry.error or "")
            if hidden_only:
                block = self.markers.hidden_block(self._test_cell(ex).source)  # its seed included
                entry = cell_outcome(self.run(block), ex.id)
            else:
                entry = self.rerun_tests(ex)
            ok, message, _ = verdict(entry, self.references.get(ex.id))
            return Outcome(ok, message)
        finally:
            self.restore(ex)

    def restore(self, ex: course.Exercise) -> None:
        # the variant's values first: an answer may have bound a parameter again (tests/test_variant_notebooks.py)
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


def reads_beyond_reference(solution, ex: course.Exercise, source: str) -> set[str]:
    """Names an answer reads (at once or when its functions are called) that neither the reference's
    answer cells nor the exercise's test cell read: what the short run's proof has not fingerprinted."""
    from autograder.shortrun.cellfacts import BUILTIN_NAMES, analyze

    def reads(src: str) -> set[str]:
        facts = analyze(src)
        return facts.reads | facts.late_reads

    covered = set().union(*(reads(solution.cells[i].source) for i in [*ex.solution_cells, ex.test_cell]))
    return reads(source) - covered - BUILTIN_NAMES


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
