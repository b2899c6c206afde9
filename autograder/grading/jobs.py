"""A grading job, and what a worker does with one: the same code for the local pool and Slurm.

A :class:`Job` carries everything a worker needs (the notebook's course data, loaded once by
the planner; the reference observations; the submission's path and seed), so workers read
nothing else of the course.  A worker never raises: whatever goes wrong becomes the job's
recorded result, with its reason.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from autograder import PACKAGE_DIR
from autograder.grading.coursedata import NotebookData
from autograder.grading.execute import Limits
from autograder.grading.pipeline import grade_notebook
from autograder.grading.references import reference_recorded, run_reference
from autograder.grading.workfolder import compile_cache_store
from autograder.values import outputs, timing
from autograder.values.digest import sha
from autograder.values.records import ExerciseResult, NotebookResult, Reference, Status


@dataclass
class Job:
    data: NotebookData
    student: str
    path: str  # the submitted notebook
    seed: int
    sandbox: bool
    key: str  # what the result is valid for: a digest of run_inputs
    refs: Reference | None = None
    full: bool = False  # --full: also run the notebook top to bottom, beside its grade path (a diagnostic)
    handed: nbformat.NotebookNode | None = None  # nbgrader's Autograde: the submission as it read it

    @property
    def assignment(self) -> str:
        return self.data.assignment.name

    @property
    def notebook(self) -> str:
        return self.data.name

    @property
    def root(self) -> Path:
        return self.data.root


@dataclass
class JobOutput:
    """What one job gives back: in this process as it is, from a pool worker pickled, from a Slurm task as
    the JSON of :meth:`to_dict` (the one process boundary that needs an encoding)."""

    result: NotebookResult
    executed: nbformat.NotebookNode | None = None  # cleaned by LimitOutputs: it always serialises
    runner: dict = field(default_factory=dict)  # where it ran (a Slurm node, its GPU)

    def to_dict(self) -> dict:
        return {"result": self.result.to_dict(), "executed": self.executed, "runner": self.runner}

    @classmethod
    def from_dict(cls, d: dict) -> "JobOutput":
        executed = d.get("executed")
        return cls(NotebookResult.from_dict(d["result"]),
                   nbformat.from_dict(executed) if isinstance(executed, dict) else None, d.get("runner") or {})


_GRADER_VERSION: str | None = None


# Commands that only read results or submissions, fill submitted/ or serve learners: no grade depends on their
# code, and nothing that grades imports them (tests/system/test_term.py checks that), so changing one regrades nothing.
NOT_GRADING = frozenset({"commands/check.py", "commands/collect.py", "commands/demo.py", "commands/export.py", "commands/feedback.py",
                         "commands/handout.py", "commands/progress.py", "commands/release.py", "commands/report.py",
                         "commands/similarity.py", "adapters/hiddentests.py", "adapters/lms_roster.py", "adapters/exchange.py",
                         "adapters/release_folder.py", "adapters/converters.py", "adapters/lms.py",
                         "adapters/exchange_folders.py", "adapters/exchange_collect.py", "values/fdcopy.py", "adapters/export.py",
                         "adapters/feedback.py",
                         "commands/hub.py",
                         "hub/__init__.py", "hub/config.py", "hub/layout.py", "hub/class_roster.py", "hub/spawner.py",
                         "hub/groups.py", "hub/processes.py"})


def grader_version() -> str:
    """A digest of the grader's own code (every module but :data:`NOT_GRADING`): a result graded by other
    code is graded again."""
    global _GRADER_VERSION
    if _GRADER_VERSION is None:
        pkg = Path(PACKAGE_DIR)
        code = sorted(p.relative_to(pkg).as_posix() for p in pkg.rglob("*.py"))
        _GRADER_VERSION = sha(b"".join(rel.encode() + (pkg / rel).read_bytes() for rel in code
                                       if rel not in NOT_GRADING))[:16]
    return _GRADER_VERSION


def run_inputs(data: NotebookData, path: Path, seed: int, limits: Limits) -> dict:
    """Everything that decides what grading one submission gives, but its lateness: the submission, the
    release with its hidden tests and reference, the grader, the hidden-test seed and the limits."""
    sub = path.read_bytes() if path.is_file() and not path.is_symlink() else b"<missing>"
    return {"submission": sha(sub)[:32], "file": path.name, "tests": data.solution_sha[:32],
            "grader": grader_version(), "seed": seed, "limits": sha(repr(limits))[:16]}


def inputs_key(inputs: dict) -> str:
    return sha(json.dumps(inputs, sort_keys=True))[:32]


# what a change of each run input means, in the change list ``grade`` prints
INPUT_WORDS = {"submission": "new submission", "file": "new submission", "tests": "new tests or reference",
               "grader": "new grader version", "seed": "new hidden-test seed", "limits": "new limits"}


def failed_result(job: Job, why: str) -> NotebookResult:
    """A recorded zero for a notebook whose grading could not finish, with the reason."""
    return NotebookResult(job.student, job.assignment, job.notebook, error=why, seed=job.seed,
                          exercises=[ExerciseResult(e.id, e.title, e.points, 0.0, Status.FAILED, why)
                                     for e in job.data.exercises])


def failed_output(job: Job, why: str) -> JobOutput:
    return JobOutput(failed_result(job, why))


def reference_cache(root: Path) -> Path:
    return Path(root) / ".autograder" / "reference"


def make_sandbox(enabled: bool):
    if not enabled:
        return None
    from autograder.sandbox.launch import Sandbox

    return Sandbox()


def run_job(job: Job) -> JobOutput:
    """Grade one notebook (in this process, a worker process, or a Slurm task)."""
    try:
        with timing.unit("job", student=job.student, assignment=job.assignment, notebook=job.notebook):
            result, executed = grade_notebook(Path(job.path), job.data, student_id=job.student, seed=job.seed,
                                              refs=job.refs, limits=Limits.from_env(), full=job.full,
                                              handed=job.handed,
                                              sandbox=make_sandbox(job.sandbox),
                                              compile_cache=compile_cache_store(reference_cache(job.root), job.data))
    except Exception as exc:  # noqa: BLE001 - a grader fault must still leave a recorded result
        return failed_output(job, f"grader error: {type(exc).__name__}: {str(exc)[:300]}")
    return JobOutput(result, executed)


def reference_job(data: NotebookData, seed: int, sandbox: bool) -> Reference:
    """Run one notebook's reference solution (in a worker): its observations, or why there are none."""
    where = data.where
    recorded = reference_recorded(data, seed, reference_cache(data.root))
    print(f"reference {'recorded earlier, reused' if recorded else 'run'}: {where} (seed {seed})", flush=True)
    start = time.monotonic()
    try:
        with timing.unit("reference", assignment=data.assignment.name, notebook=data.name):
            ref = run_reference(data, seed, limits=Limits.from_env(), sandbox=make_sandbox(sandbox),
                                cache_dir=reference_cache(data.root))
    except Exception as exc:  # noqa: BLE001 - grade stops before recording anything
        ref = Reference(failure=f"{type(exc).__name__}: {str(exc)[:600]}")
    if ref.failure:
        ref.failure = outputs.safe_text(ref.failure, 800)
        print(f"reference run failed: {where}: {ref.failure}", file=sys.stderr, flush=True)
    elif not recorded:
        print(f"reference ready: {where} in {time.monotonic() - start:.1f} s", flush=True)
    return ref
