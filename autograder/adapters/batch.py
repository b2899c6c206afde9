"""Grading a batch of nbgrader submissions into nbgrader's gradebook: plan, run, record.

What ``grade`` does and nbgrader's *Autograde* does through it (:mod:`autograder.adapters.autograde`), as a
library call, :func:`grade`, on a typed :class:`GradeRequest`:

1. **Plan.** Find the submissions (:mod:`autograder.adapters.submitted`), load each notebook's course data
   once (:class:`~autograder.grading.coursedata.NotebookData`), and keep every result the store holds
   for the same submission, solution, seed and limits.
2. **References.** Run each notebook's reference solution on the backend, where the submissions will
   run (once per per-student variant a submission needs), while nbgrader's gradebook learns the
   assignments.  If one fails, stop before anything is recorded (:class:`ReferenceFailed`).
3. **Grade.** The backend (:mod:`autograder.grading.backend`) runs the jobs; the one
   :class:`~autograder.adapters.recorder.Recorder` records each output as it arrives, in this process.

What the instructor is told of it (the table, what changed, the warnings) is the command's:
:mod:`autograder.commands.grade` prints :class:`Outcome`.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import nbformat

from autograder import PACKAGE_DIR
from autograder.adapters import late
from autograder.adapters.gradebook import recorded_in_gradebook, withdraw
from autograder.adapters.recorder import Change, Recorder, run_reasons
from autograder.adapters.submitted import Found, discover, set_submitted_at, unreadable_nbgrader_time, ungraded_away
from autograder.grading import seeds as seeds_mod
from autograder.grading.backend import open_backend
from autograder.grading.coursedata import NotebookData
from autograder.grading.execute import Limits
from autograder.grading.jobs import Job, JobOutput, inputs_key, run_inputs
from autograder.grading.slurm import SlurmOptions
from autograder.values import course
from autograder.values.errors import UserError
from autograder.values.records import NotebookResult


class ReferenceFailed(RuntimeError):
    """A reference solution could not run where the submissions will: nothing may be graded."""


@dataclass
class GradeRequest:
    """What one ``grade`` run is asked to do (the command line's ``grade`` arguments, typed)."""

    root: Path
    assignments: list[str] = field(default_factory=list)
    students: list[str] | None = None
    notebooks: list[str] | None = None  # nbgrader's Autograde grades one notebook at a time
    submissions: Path | None = None  # default: the course's submitted/
    seed: int | None = None  # a trial run with this hidden-test seed, which keeps nothing
    new_seed: bool = False
    submitted_at: str | None = None
    force: bool = False
    full: bool = False
    retry_errors: bool = False
    default_variant: bool = False
    workers: int | None = None  # default: one per GPU, else one per core
    backend: str = "local"
    slurm: SlurmOptions = field(default_factory=SlurmOptions)
    sandbox: bool = True
    handed: nbformat.NotebookNode | None = None  # nbgrader's Autograde: the one notebook, as it read it

    @property
    def trial(self) -> bool:
        return self.seed is not None

    @classmethod
    def from_args(cls, args) -> "GradeRequest":
        """The request the command line's ``grade`` arguments make."""
        return cls(root=Path(args.root) if getattr(args, "root", None) else course.find_root(),
                   assignments=list(args.assignments or []), students=args.student,
                   submissions=Path(args.submissions).resolve() if args.submissions else None,
                   seed=args.seed, new_seed=args.new_seed, submitted_at=args.submitted_at, force=args.force,
                   full=args.full, retry_errors=args.retry_errors, default_variant=args.default_variant,
                   workers=args.workers, backend=args.backend, sandbox=not args.no_sandbox,
                   slurm=SlurmOptions(args.partition, args.gpus_per_job, args.time_limit, args.array_parallelism,
                                      args.chunk, args.cpus_per_job, args.mem_gb))

    @classmethod
    def one_notebook(cls, root: Path, assignment: str, student: str, notebook: str,
                     handed: nbformat.NotebookNode) -> "GradeRequest":
        """One notebook of one student, graded again whatever is recorded, in this process: what nbgrader's
        *Autograde* of that notebook runs, on the notebook it ``handed`` over (the submission as it read it)."""
        return cls(root=root, assignments=[assignment], students=[student], notebooks=[notebook], force=True,
                   workers=1, handed=handed)


@dataclass
class Outcome:
    """What a ``grade`` run did."""

    results: dict[tuple[str, str, str], NotebookResult]  # (student, assignment, notebook): every planned one
    written: dict[tuple[str, str, str], nbformat.NotebookNode]  # the autograded notebooks, kept for a handed one
    changes: list[Change]
    taken_back: list[tuple[Found, NotebookResult]]  # grades that no longer stand
    held: list[tuple[Found, str]]  # notebooks whose nbgrader time does not read, with that text
    graded: int  # notebooks that ran
    workers: int
    seconds: float


def check_references(refs: dict) -> None:
    bad = {k: r.failure for k, r in refs.items() if not r.ok}
    if bad:
        lines = [f"  {a}/{n}{f' (variant {t})' if t else ''}: {why}" for (a, n, t), why in sorted(bad.items())]
        raise ReferenceFailed(
            "grade stopped before recording anything: the reference solution did not run where the "
            "submissions would run, so every submission would be judged wrongly.\n" + "\n".join(lines) +
            "\nCheck that the sandbox works (bubblewrap, run as root), that the kernels import this "
            f"autograder package ({PACKAGE_DIR}), and that solutions/ passes its own tests.")


def grade(req: GradeRequest, say: Callable[[str], None] = print, progress=None) -> Outcome:
    """Plan, run and record ``req`` (this module's docstring); ``say`` takes each line the plan has for the
    instructor, ``progress`` (``start(total)``, ``done(job, result)``, ``close()``) hears of each result."""
    from autograder.grading.workers import default_workers

    root, trial = req.root, req.trial
    if trial and req.new_seed:
        raise UserError("--seed N grades one run that keeps nothing and --new-seed draws the term's seed: give one")
    if trial and req.submitted_at:
        raise UserError("--seed N keeps nothing, and --submitted-at keeps a submission time: give the time in a "
                        "run without --seed")
    subs = req.submissions or course.folder(root, "submitted")
    db_url = course.gradebook_url(root)
    for warning in late.check(root, subs, db_url):  # the late policy reads, before anything is graded
        say(warning)
    if not subs.is_dir():
        raise UserError(f"no submissions folder {subs}: collect first (autograder collect, or nbgrader collect), "
                        "or give --submissions FOLDER")
    todo = discover(root, subs, req.assignments, req.students)
    if req.notebooks:
        todo = [f for f in todo if f.notebook in req.notebooks]
    if not todo:
        raise UserError(f"nothing to grade in {subs} (nbgrader's layout: STUDENT/ASSIGNMENT/NOTEBOOK.ipynb)")
    if not req.submissions and not req.students:
        orphans = ungraded_away(root, subs, sorted({f.assignment.name for f in todo}))
        if orphans:
            say(f"recorded grades whose submission is no longer in {subs.name}/ (they stand, and export, feedback "
                f"and report use them): {', '.join(orphans)}; a student added by mistake: nbgrader db student "
                "remove ID --force")
    if req.submitted_at:
        if not req.students:
            raise UserError("--submitted-at sets one student's submission time: give --student too")
        set_submitted_at(root, todo, req.submitted_at)
    names = sorted({f.assignment.name for f in todo})
    seeds = ({n: req.seed for n in names} if trial else seeds_mod.term_seeds(root, names, rotate=req.new_seed))
    limits = Limits.from_env()
    recorder = Recorder(root, db_url, trial, keep_written=req.handed is not None)
    store = recorder.store
    in_gradebook = recorded_in_gradebook(db_url)
    held = {id(f): (f, when) for f in todo if (when := unreadable_nbgrader_time(root, f)) is not None}
    taken_back: list[tuple[Found, NotebookResult]] = []
    for f, _ in held.values():  # nbgrader's Autograde refuses these too: neither path grades them until it reads
        if trial:
            continue  # a trial run takes nothing back either
        before = store.get(f.assignment.name, f.student, f.notebook)
        if store.remove(f.assignment.name, f.student, f.notebook) or \
                (f.student, f.assignment.name, f.notebook) in in_gradebook:
            withdraw(root, db_url, f.assignment.name, f.student, f.notebook, f.path.parent)
            if before is not None:
                taken_back.append((f, before))
    todo = [f for f in todo if id(f) not in held]
    jobs, kept, data = _plan(req, todo, seeds, limits, store, in_gradebook)

    results: dict[tuple[str, str, str], NotebookResult] = {}
    rerecorded = 0
    for job, f, prior, inputs in kept:
        again = recorder.keep(job, f, prior, inputs)
        results[(job.student, job.assignment, job.notebook)] = again or prior.result
        rerecorded += again is not None
    if len(kept) - rerecorded:
        say(f"{len(kept) - rerecorded} notebook(s) already graded with the same submission, tests, grader, seed "
            "and policy: kept")
    if rerecorded:
        say(f"{rerecorded} notebook(s) re-recorded for a change of policy or submission time, without running them")
    needed = [(data[k], seeds[k[0]]) for k in sorted({j.data.key for j, *_ in jobs})]
    start = time.monotonic()
    workers = default_workers() if not req.workers else max(1, int(req.workers))
    by_job = {id(j): (f, prior, inputs) for j, f, prior, inputs in jobs}

    def on_output(job: Job, output: JobOutput) -> None:
        f, prior, inputs = by_job[id(job)]
        why = run_reasons(prior, inputs, req.retry_errors, req.force)
        result = recorder.record(job, f, prior, inputs, output.result, output.executed, output.runner, why)
        results[(job.student, job.assignment, job.notebook)] = result
        if progress is not None:
            progress.done(job, result)

    with open_backend(req.backend, workers if len(jobs) > 1 else 1, root, req.slurm) as backend:
        # the gradebook learns the assignments (nbgrader's generate_assignment) while the references run
        registering = threading.Thread(target=recorder.register,
                                       args=([] if trial else sorted({j.assignment for j, *_ in jobs}),))
        registering.start()
        refs = backend.references(needed, req.sandbox) if jobs else {}
        registering.join()
        check_references(refs)
        for job, *_ in jobs:
            job.refs = refs[job.data.key]
        if progress is not None:
            progress.start(len(jobs))
        backend.run([j for j, *_ in jobs], on_output)
        workers = backend.workers
    if progress is not None:
        progress.close()
    return Outcome(results, recorder.written, recorder.changes, taken_back, list(held.values()), len(jobs), workers,
                   time.monotonic() - start)


def _plan(req: GradeRequest, todo: list[Found], seeds: dict, limits: Limits, store, in_gradebook) -> tuple:
    """The jobs to run and the stored results to keep, each as ``(job, found, prior, inputs)``, and each
    notebook's course data by key.  Graded on the student's own variant, drawn again from the student id,
    unless the class was handed the default one (its cell in a submission that holds another is then
    restored to the default, with a note)."""
    jobs, kept, data, secrets = [], [], {}, {}
    for f in todo:
        d = NotebookData.loaded(f.assignment, f.notebook)
        if d.has_variants and not req.default_variant:
            if f.assignment.name not in secrets:  # each assignment's variant secret, read once
                secrets[f.assignment.name] = seeds_mod.variant_secret(req.root, f.assignment.name)
            d = d.for_student(f.student, secrets[f.assignment.name])
        data[d.key] = d
        inputs = run_inputs(d, f.path, seeds[f.assignment.name], limits)
        job = Job(d, f.student, str(f.path), seeds[f.assignment.name], req.sandbox, inputs_key(inputs), full=req.full,
                  handed=req.handed)
        prior = store.entry(f.assignment.name, f.student, f.notebook)
        graded = course.folder(req.root, "autograded", f.student, f.assignment.name, f"{f.notebook}.ipynb")
        rerun = (req.trial or req.force or prior is None or prior.key != job.key
                 or (req.retry_errors and prior.result.grader_error)
                 # what the run wrote is gone (the gradebook or the autograded notebook): it runs again
                 or (f.student, f.assignment.name, f.notebook) not in in_gradebook
                 or (prior.result.error is None and not graded.is_file()))
        (jobs if rerun else kept).append((job, f, prior, inputs))
    return jobs, kept, data
