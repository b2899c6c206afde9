"""``autograder grade``: plan a batch, run it on a backend, record each result as it arrives.

1. **Plan.** Find the submissions (nbgrader's ``submitted/STUDENT/ASSIGNMENT/`` layout), load
   each notebook's course data once (:class:`~autograder.coursedata.NotebookData`) and keep
   every result the store already holds for the same submission and solution.
2. **References.** Run each notebook's reference solution on the backend, where the
   submissions will run.  If one fails, stop before anything is recorded.
3. **Grade.** The backend (:mod:`autograder.workers` or :mod:`autograder.slurm`) runs the
   jobs; this process alone records each output (:mod:`autograder.gradebook`,
   :mod:`autograder.store`), and whatever goes wrong while recording one job becomes that
   job's result.
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

from . import course, late, outputs, timing
from .coursedata import NotebookData
from .gradebook import ensure_in_gradebook, write_result
from .jobs import Job, JobOutput, failed_result, job_key
from .store import ResultStore
from .submission import submission_time


class ReferenceFailed(RuntimeError):
    """A reference solution could not run where the submissions will: nothing may be graded."""


def discover(root: Path, subs: Path, assignments: list[str], students: list[str] | None):
    """(assignment, notebook name, student, submitted notebook path) for every submission to grade."""
    names = assignments or sorted({p.name for p in subs.glob("*/*") if p.is_dir()} &
                                  {a.name for a in course.assignments(root)})
    for name in names:
        a = course.Assignment(name, root)
        if not a.solution_dir.is_dir():
            raise SystemExit(f"unknown assignment {name!r} (no {a.solution_dir.relative_to(root)})")
        for sdir in sorted(p for p in subs.iterdir() if p.is_dir() and not p.name.startswith(".")):
            if students and sdir.name not in students:
                continue
            if not (sdir / name).is_dir():
                continue
            for nb in a.notebooks():
                yield a, nb, sdir.name, sdir / name / f"{nb}.ipynb"


def check_references(refs: dict) -> None:
    bad = {k: r.failure for k, r in refs.items() if not r.ok}
    if bad:
        lines = [f"  {a}/{n}: {why}" for (a, n), why in sorted(bad.items())]
        raise ReferenceFailed(
            "grade stopped before recording anything: the reference solution did not run where the "
            "submissions would run, so every submission would be judged wrongly.\n" + "\n".join(lines) +
            "\nCheck that the sandbox works (bubblewrap, run as root), that the kernels import this "
            f"autograder package ({Path(__file__).resolve().parent}), and that solutions/ passes its own tests.")


def make_backend(args, root: Path, workers: int):
    if getattr(args, "backend", "local") == "slurm":
        from .slurm import SlurmBackend

        return SlurmBackend(args, root / ".autograder" / "submitit")
    from .workers import LocalBackend

    return LocalBackend(workers)


def grade_command(args) -> int:
    from tqdm.auto import tqdm

    from .check import random_seed
    from .workers import default_workers

    root = course.find_root()
    subs = Path(args.submissions).resolve() if args.submissions else course.folder(root, "submitted")
    if not subs.is_dir():
        print(f"no submissions folder: {subs}", file=sys.stderr)
        return 2
    db_url = f"sqlite:///{root / 'gradebook.db'}"
    seed = args.seed if args.seed is not None else random_seed()
    todo = list(discover(root, subs, args.assignments, args.student))
    if not todo:
        print("nothing to grade", file=sys.stderr)
        return 2
    sandbox_on = not args.no_sandbox
    store = ResultStore(root)
    data: dict[tuple[str, str], NotebookData] = {}
    jobs, results = [], {}
    for a, nb, student, path in todo:
        d = data.setdefault((a.name, nb), NotebookData.load(a, nb))
        job = Job(d, student, str(path), seed, sandbox_on, job_key(d, path), full=getattr(args, "full", False))
        prior = None if args.force else store.get(a.name, student, nb, key=job.key)
        if prior is not None and getattr(args, "retry_errors", False) and prior.grader_error:
            prior = None
        if prior is not None:
            results[(student, a.name, nb)] = prior
        else:
            jobs.append(job)
    if results:
        print(f"{len(results)} notebook(s) already graded and unchanged: kept")
    needed = [data[k] for k in sorted({(j.assignment, j.notebook) for j in jobs})]
    start = time.monotonic()
    workers = default_workers() if not args.workers else max(1, int(args.workers))
    failed = 0
    bar = None

    def record(job: Job, output: JobOutput) -> None:
        """Record one job's output; whatever goes wrong here becomes that job's recorded result."""
        nonlocal failed
        result = output.result
        result.submitted_at, result.submitted_at_source = submission_time(Path(job.path).parent)
        result.seconds_late = late.lateness(root, job.assignment, job.student, result.submitted_at)
        result.late_penalty = late.penalty(root, job.student, result.score, result.seconds_late)
        try:
            with timing.unit("write", student=job.student, notebook=job.notebook), timing.phase("gradebook write"):
                write_result(root, db_url, job, result, output.executed)
        except Exception as exc:  # noqa: BLE001 - e.g. an output that would not serialise
            why = f"grader error: the result could not be recorded ({type(exc).__name__}: {str(exc)[:200]})"
            print(f"{job.student}/{job.assignment}/{job.notebook}: {why}", file=sys.stderr, flush=True)
            when = (result.submitted_at, result.submitted_at_source, result.seconds_late)
            result = failed_result(job, outputs.safe_text(why))  # a zero: no late penalty to take
            result.submitted_at, result.submitted_at_source, result.seconds_late = when
            try:
                write_result(root, db_url, job, result, None)
            except Exception as again:  # noqa: BLE001
                print(f"  and the zero could not be written to the gradebook: {again!r}", file=sys.stderr)
        try:
            with timing.unit("write", student=job.student, notebook=job.notebook), timing.phase("result file"):
                store.put(job.key, result, output.runner)
        except Exception as exc:  # noqa: BLE001
            print(f"{job.student}/{job.assignment}/{job.notebook}: result not kept ({exc!r})", file=sys.stderr)
        results[(job.student, job.assignment, job.notebook)] = result
        failed += bool(result.error)
        if bar is not None:
            bar.set_postfix(failed=failed)
            bar.update(1)

    try:
        with make_backend(args, root, workers if len(jobs) > 1 else 1) as backend:
            # the gradebook learns the assignments (nbgrader's generate_assignment) while the references run
            names = sorted({j.assignment for j in jobs})

            def register() -> None:
                with timing.unit("registration", assignments=names):
                    ensure_in_gradebook(root, names, db_url)

            registering = threading.Thread(target=register)
            registering.start()
            refs = backend.references(needed, seed, sandbox_on, short=not getattr(args, "full", False))
            registering.join()
            check_references(refs)
            for job in jobs:
                job.refs = refs[(job.assignment, job.notebook)]
            bar = tqdm(total=len(jobs), desc="grading", unit="nb", disable=not jobs)
            backend.run(jobs, record)
            workers = backend.workers
    except ReferenceFailed as exc:
        print(str(exc), file=sys.stderr)
        return 2
    if bar is not None:
        bar.close()
    print(table(results.values()))
    print(f"graded {len(jobs)} notebook(s) in {time.monotonic() - start:.1f} s with {workers} worker(s)")
    return 0


def table(results) -> str:
    """The instructor's summary: one line per notebook, with what went wrong and what was tampered with."""
    rows = sorted(results, key=lambda r: (r.assignment, r.student, r.notebook))
    lines = [f"{'student':<16} {'notebook':<22} {'score':>9}  notes"]
    for r in rows:
        notes = ([r.error] if r.error else []) + r.tampering
        lines.append(f"{r.student:<16} {r.notebook:<22} {r.score:>4g}/{r.max_score:<4g}  {'; '.join(notes)[:120]}")
    return "\n".join(lines)
