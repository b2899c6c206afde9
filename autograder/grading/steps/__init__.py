"""The grade of one notebook as a list of single-purpose steps, in nbgrader's own form: each step is an
nbgrader preprocessor (``preprocess(nb, resources)``, configurable with traitlets, one per module) that takes
the notebook and returns the one the next step gets.  Each step's module holds its logic, not a shell around
another module's: reading a submission without trust (:mod:`.read`), rebuilding the notebook from the
instructor's copy (:mod:`.restore`), arming the hidden tests (:mod:`.arm`), planning the runs (:mod:`.path`),
running them in their work folders (:mod:`.execute`), judging observations into verdicts (:mod:`.judge`),
keeping a reference's observations (:mod:`.observe`), bounding what leaves (:mod:`.limit`).

What a step needs beyond the notebook, and what it leaves for the next one, travels in
``resources["grading"]``: one :class:`GradingRun`, a typed value (nothing in it is JSON).

:func:`default_steps`, for a submission, in order:

1. :class:`~.read.ReadSubmission`: read the file once, hash it, parse it without trust;
2. :class:`~.restore.RestoreInstructorCells`: the instructor's cells put back, tampering logged;
3. :class:`~.arm.ArmHiddenTests`: each hidden test given its own seed;
4. :class:`~.path.PlanGradePath`: the runs to make: the grade path (:mod:`autograder.gradepath`) with hidden
   tests, every cell without; its ``full`` setting (``--full``) adds the notebook top to bottom after it;
5. :class:`~.execute.ExecuteInSandbox`: each planned run, in a fresh sandboxed kernel;
6. :class:`~.judge.JudgeObservations`: the first run's verdicts are the grade; each later run is judged the
   same way and said beside it, where its verdicts differ (a diagnostic);
7. :class:`~.limit.LimitOutputs`: what leaves always serialises and carries no active content.

:func:`reference_steps`, for the reference solution: steps 3 to 5 on the solution itself, then
:class:`~.observe.KeepObservations` (its hidden tests' observations, or why there are none).

A step that ends the run (an unreadable submission) sets ``run.done``; no later step runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from autograder.grading.coursedata import NotebookData
from autograder.grading.execute import ExecResult, Limits
from autograder.grading.steps.read import Submission
from autograder.values.records import ExerciseResult, NotebookResult, Reference


@dataclass
class PlannedRun:
    """One execution the plan asks for: its name, the notebook it runs, and what it left."""

    name: str  # "grade path" or "top to bottom"
    nb: nbformat.NotebookNode
    executed: ExecResult | None = None
    exercises: list[ExerciseResult] = field(default_factory=list)  # its verdicts, once judged


@dataclass
class GradingRun:
    """One notebook on its way through the steps: what came in, and what each step left."""

    data: NotebookData
    student_path: Path | None  # the submitted file (None: the reference solution)
    student_id: str
    seed: int
    refs: Reference | None  # the reference's observations to judge against (None: the visible tests only)
    limits: Limits
    sandbox: object | None = None
    compile_cache: Path | None = None  # the compiled kernels the reference run left (sandboxed runs)
    hidden: bool | None = None  # whether the hidden tests run (default: where there are observations to judge)
    keep_compile_cache: Path | None = None  # the reference's run: where the compile cache it makes is kept
    handed: nbformat.NotebookNode | None = None  # the submission as nbgrader's Autograde hands it over, unread
    result: NotebookResult | None = None
    submitted: Submission | None = None
    runs: list[PlannedRun] = field(default_factory=list)  # planned by step 4: the grade's run first
    reference: Reference | None = None  # the reference's run: its observations, or why there are none
    done: bool = False  # a step ended the run

    def __post_init__(self) -> None:
        if self.hidden is None:
            self.hidden = self.refs is not None
        if self.result is None:
            self.result = NotebookResult(self.student_id, self.data.assignment.name, self.data.name, seed=self.seed)

    @property
    def graded(self) -> PlannedRun | None:
        """The run whose verdicts are the grade (the first planned), once there is one."""
        return self.runs[0] if self.runs else None


def default_steps(full: bool = False) -> list:
    """The steps that grade a submission, in the order this module's docstring gives; ``full``: the plan's
    ``--full`` setting."""
    from autograder.grading.steps.arm import ArmHiddenTests
    from autograder.grading.steps.execute import ExecuteInSandbox
    from autograder.grading.steps.judge import JudgeObservations
    from autograder.grading.steps.limit import LimitOutputs
    from autograder.grading.steps.path import PlanGradePath
    from autograder.grading.steps.read import ReadSubmission
    from autograder.grading.steps.restore import RestoreInstructorCells

    return [ReadSubmission(), RestoreInstructorCells(), ArmHiddenTests(), PlanGradePath(full=full),
            ExecuteInSandbox(), JudgeObservations(), LimitOutputs()]


def reference_steps() -> list:
    """The steps that run the reference solution: the submission's from arming on, then its observations kept."""
    from autograder.grading.steps.arm import ArmHiddenTests
    from autograder.grading.steps.execute import ExecuteInSandbox
    from autograder.grading.steps.observe import KeepObservations
    from autograder.grading.steps.path import PlanGradePath

    return [ArmHiddenTests(), PlanGradePath(), ExecuteInSandbox(), KeepObservations()]


def run_steps(run: GradingRun, steps: list | None = None,
              nb: nbformat.NotebookNode | None = None) -> nbformat.NotebookNode | None:
    """Pass ``nb`` (none: the first step reads it) and ``run`` through ``steps`` (default: :func:`default_steps`);
    the notebook the last step returns."""
    resources = {"grading": run}
    for step in steps if steps is not None else default_steps():
        if run.done:
            break
        nb, resources = step.preprocess(nb, resources)
    return nb
