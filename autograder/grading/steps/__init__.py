"""The grade of one notebook as a list of single-purpose steps, in nbgrader's own form: each step is an
nbgrader preprocessor (``preprocess(nb, resources)``, configurable with traitlets, one per module), and
the notebook on its way through them is the one the step returns.  Each step's module holds its logic,
not a shell around another module's: reading a submission without trust (:mod:`.read`), rebuilding the
notebook from the instructor's copy (:mod:`.restore`), arming the hidden tests (:mod:`.arm`), the work
folder and the run (:mod:`.execute`), judging observations into verdicts (:mod:`.judge`); the reference
run (:mod:`autograder.grading.references`) and the test harness call the same functions.

What a step needs beyond the notebook, and what it leaves for the next one, travels in
``resources["grading"]``: one :class:`GradingRun`, a typed value (nothing in it is JSON).

:func:`default_steps`, in order:

1. :class:`~.read.ReadSubmission`: read the file once, hash it, parse it without trust;
2. :class:`~.restore.RestoreInstructorCells`: the instructor's cells put back, tampering logged;
3. :class:`~.arm.ArmHiddenTests`: each hidden test given its own seed;
4. :class:`~.path.PlanGradePath`: the grade path (:mod:`autograder.gradepath`), with hidden tests;
5. :class:`~.execute.ExecuteInSandbox` (path), then :class:`~.judge.JudgeObservations`: the grade;
6. with ``--full``, :class:`~.execute.ExecuteInSandbox` (full), the notebook top to bottom, then
   :class:`~.judge.JudgeObservations` again: a diagnostic that says where its verdicts differ;
7. :class:`~.limit.LimitOutputs`: what leaves always serialises and carries no active content.

A step that finds nothing to do for this run (no ``--full``, no path) passes the notebook on unchanged; a
step that ends the run (an unreadable submission) sets ``run.done``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from autograder.gradepath import GradePath
from autograder.grading.coursedata import NotebookData
from autograder.grading.execute import ExecResult, Limits
from autograder.grading.steps.read import Submission
from autograder.values.records import ExerciseResult, NotebookResult, Reference


@dataclass
class GradingRun:
    """One submitted notebook on its way through the steps: what came in, and what each step left."""

    data: NotebookData
    student_path: Path
    student_id: str
    seed: int
    refs: Reference | None  # None: the visible tests only
    limits: Limits
    sandbox: object | None = None
    compile_cache: Path | None = None  # the compiled kernels the reference run left (sandboxed runs)
    full: bool = False  # --full: the notebook also runs top to bottom, beside its path (a diagnostic)
    result: NotebookResult | None = None
    submitted: Submission | None = None
    merged: nbformat.NotebookNode | None = None  # the whole notebook, armed
    path: GradePath | None = None  # its grade path (with hidden tests)
    todo: nbformat.NotebookNode | None = None  # what grading runs: the cells off the path marked
    executed: ExecResult | None = None  # the grade's run
    judged: bool = False  # whether the grade's run has been judged
    exercises: list[ExerciseResult] = field(default_factory=list)  # the grade's verdicts
    top_to_bottom: ExecResult | None = None  # --full's run
    compared: bool = False  # whether --full's run has been judged beside the grade's
    done: bool = False  # a step ended the run

    def __post_init__(self) -> None:
        if self.result is None:
            self.result = NotebookResult(self.student_id, self.data.assignment.name, self.data.name, seed=self.seed)

    @property
    def hidden(self) -> bool:
        return self.refs is not None


def default_steps() -> list:
    """The steps, in the order this module's docstring gives."""
    from autograder.grading.steps.arm import ArmHiddenTests
    from autograder.grading.steps.execute import ExecuteInSandbox
    from autograder.grading.steps.judge import JudgeObservations
    from autograder.grading.steps.limit import LimitOutputs
    from autograder.grading.steps.path import PlanGradePath
    from autograder.grading.steps.read import ReadSubmission
    from autograder.grading.steps.restore import RestoreInstructorCells

    return [ReadSubmission(), RestoreInstructorCells(), ArmHiddenTests(), PlanGradePath(),
            ExecuteInSandbox(mode="path"), JudgeObservations(), ExecuteInSandbox(mode="full"),
            JudgeObservations(), LimitOutputs()]


def run_steps(run: GradingRun, steps: list | None = None) -> nbformat.NotebookNode | None:
    """Pass ``run`` through ``steps`` (default: :func:`default_steps`); the notebook the last step returns."""
    nb = None
    resources = {"grading": run}
    for step in steps if steps is not None else default_steps():
        if run.done:
            break
        nb, resources = step.preprocess(nb, resources)
    return nb
