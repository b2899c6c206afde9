"""``autograder grade``: grade submissions into nbgrader's gradebook.

Workers run the learner notebooks (in the sandbox) and judge them; only this
module's writer touches ``gradebook.db`` and ``autograded/``, from one process,
so the sqlite gradebook never sees two writers.  Each finished notebook's result
is saved atomically under ``.autograder/results/``; a rerun skips every notebook
whose submission and solution are unchanged, so a killed run resumes where it
stopped and regrading is idempotent.
"""

from __future__ import annotations

import concurrent.futures as cf
import json
import multiprocessing
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import nbformat

from . import course, grading, outputs, probe
from .execute import Limits

HIDDEN_FAILURE = "HiddenTestFailure"


@dataclass
class Job:
    root: str
    assignment: str
    notebook: str
    student: str
    path: str
    seed: int
    refs: dict | None
    sandbox: bool
    key: str


def result_path(root: Path, assignment: str, student: str, notebook: str) -> Path:
    return root / ".autograder" / "results" / assignment / student / f"{notebook}.json"


def job_key(root: Path, assignment: course.Assignment, notebook: str, path: Path) -> str:
    sub = path.read_bytes() if path.is_file() and not path.is_symlink() else b"<missing>"
    return grading.sha(sub + b"|" + assignment.solution(notebook).read_bytes() + b"|" +
                       assignment.release(notebook).read_bytes())[:32]


def load_result(root: Path, job: Job) -> grading.NotebookResult | None:
    p = result_path(root, job.assignment, job.student, job.notebook)
    try:
        data = json.loads(p.read_text())
        if data.get("key") != job.key:
            return None
        return grading.NotebookResult.from_json(json.dumps(data["result"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def save_result(root: Path, job: Job, result: grading.NotebookResult, meta: dict | None = None) -> None:
    p = result_path(root, job.assignment, job.student, job.notebook)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_suffix(".tmp")
    tmp.write_text(json.dumps({"key": job.key, "result": json.loads(result.to_json()), "runner": meta or {}},
                              indent=1))
    os.replace(tmp, p)


# ---------------------------------------------------------------- worker side


def gpu_count() -> int:
    """GPUs on this runner, without initialising CUDA in the grader's process."""
    if os.environ.get("CUDA_VISIBLE_DEVICES") is not None:
        return len([d for d in os.environ["CUDA_VISIBLE_DEVICES"].split(",") if d.strip()])
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=20)
        return sum(line.startswith("GPU ") for line in out.stdout.splitlines()) if out.returncode == 0 else 0
    except (OSError, subprocess.TimeoutExpired):
        return 0


def default_workers() -> int:
    """One worker per GPU on a GPU runner, else one per core."""
    return gpu_count() or (os.cpu_count() or 1)


def worker_slots(workers: int) -> list[dict]:
    """The environment each worker runs with: its own GPU, or its share of the cores."""
    gpus = gpu_count()
    visible = [d.strip() for d in os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",") if d.strip()] \
        or [str(i) for i in range(gpus)]
    threads = str(max(1, (os.cpu_count() or 1) // workers))
    return [{"CUDA_VISIBLE_DEVICES": visible[i % len(visible)], "OMP_NUM_THREADS": threads} if visible
            else {"OMP_NUM_THREADS": threads} for i in range(workers)]


def pin_worker(slots) -> None:
    os.environ.update(slots.get())


def failed_result(job: "Job", why: str) -> grading.NotebookResult:
    """A recorded zero for a notebook whose grading could not finish, with the reason."""
    solution = course.read(course.Assignment(job.assignment, Path(job.root)).solution(job.notebook))
    return grading.NotebookResult(job.student, job.assignment, job.notebook, error=why, seed=job.seed,
                                  exercises=[grading.ExerciseResult(e.id, e.title, e.points, 0.0, "failed", why)
                                             for e in course.exercises(solution)])


def failed_payload(job: "Job", why: str) -> tuple[str, None]:
    return failed_result(job, why).to_json(), None


def make_sandbox(enabled: bool):
    if not enabled:
        return None
    from . import sandbox

    return sandbox.default_sandbox()


def run_job(job: Job) -> tuple[str, str | None]:
    """Grade one notebook (runs in a worker process); return (result JSON, executed notebook JSON)."""
    root = Path(job.root)
    assignment = course.Assignment(job.assignment, root)
    try:
        result, executed = grading.grade_notebook(Path(job.path), assignment, job.notebook, student_id=job.student,
                                                  seed=job.seed, refs=job.refs, limits=Limits.from_env(),
                                                  sandbox=make_sandbox(job.sandbox),
                                                  compile_cache=grading.compile_cache_store(
                                                      root / ".autograder" / "reference", assignment, job.notebook))
    except Exception as exc:  # a grader fault must still leave a recorded result
        why = str(exc) if str(exc).startswith("grader error") else \
            f"grader error: {type(exc).__name__}: {str(exc)[:300]}"
        return failed_payload(job, why)
    try:
        return result.to_json(), (nbformat.writes(executed) if executed is not None else None)
    except Exception as exc:  # noqa: BLE001 - the outputs would not serialise: keep the verdicts
        result.error = result.error or f"grader error: the executed notebook could not be kept ({type(exc).__name__})"
        return result.to_json(), None


def reference_job(root: str, assignment: str, notebook: str, seed: int, sandbox: bool) -> dict | str:
    """Run one notebook's reference solution (in a worker); its observations, or why there are none."""
    print(f"reference run: {assignment}/{notebook} (seed {seed})", flush=True)
    start = time.monotonic()
    try:
        refs = grading.run_reference(course.Assignment(assignment, Path(root)), notebook, seed,
                                     limits=Limits.from_env(), sandbox=make_sandbox(sandbox),
                                     cache_dir=Path(root) / ".autograder" / "reference")
    except Exception as exc:  # grade stops before recording anything (check_references)
        why = outputs.safe_text(f"{type(exc).__name__}: {str(exc)[:600]}", 800)
        print(f"reference run failed: {assignment}/{notebook}: {why}", file=sys.stderr, flush=True)
        return why
    print(f"reference ready: {assignment}/{notebook} in {time.monotonic() - start:.1f} s", flush=True)
    return refs


# ---------------------------------------------------------------- writer side


def autograded_notebook(executed: nbformat.NotebookNode, result: grading.NotebookResult) -> nbformat.NotebookNode:
    """The notebook instructors see: outputs kept, observation payloads dropped, hidden verdicts as errors."""
    by_ex = {e.id: e for e in result.exercises}
    for cell in executed.cells:
        if cell.cell_type != "code":
            continue
        cell.outputs = [o for o in cell.outputs if probe.MIME not in (o.get("data") or {})]
        ex = course.exercise_of(cell)
        if ex and course.is_tests(cell) and ex in by_ex:
            r = by_ex[ex]
            has_error = any(o.get("output_type") == "error" for o in cell.outputs)
            if r.status != "passed" and not has_error:
                cell.outputs.append(nbformat.v4.new_output(
                    "error", ename=HIDDEN_FAILURE, evalue=r.message or r.status,
                    traceback=[f"{HIDDEN_FAILURE}: {line}" for line in (r.message or r.status).splitlines()]))
            if r.status == "passed":
                # the grade is the judge's: an error or stderr left in a passed cell would confuse nbgrader
                cell.outputs = [o for o in cell.outputs if o.get("output_type") != "error"]
            for o in cell.outputs:
                if o.get("output_type") == "stream" and o.get("name") == "stderr":
                    o["name"] = "stdout"
                if o.get("output_type") == "execute_result":
                    o["output_type"] = "display_data"
                    o.pop("execution_count", None)
    return executed


COLLECTED_AT = ".collected_at"  # written by a collector beside the submission: the time it was received


def submission_time(folder: Path) -> tuple[str | None, str]:
    """When a submission came in, and where that time comes from.

    A collector's own record is preferred; ``timestamp.txt`` is written on the learner's side
    (nbgrader's ``submit``) and is only the learner's word; failing both, the file's time."""
    for name, source in ((COLLECTED_AT, "collector"), ("timestamp.txt", "learner's timestamp.txt")):
        f = folder / name
        try:
            if f.is_file() and not f.is_symlink() and f.stat().st_size < 200:
                text = outputs.safe_text(f.read_text(errors="replace"), 100).strip()
                if text:
                    return text, source
        except OSError:
            pass
    nb = next((p for p in sorted(folder.glob("*.ipynb")) if not p.is_symlink()), None)
    if nb is not None:
        from datetime import datetime, timezone

        stamp = datetime.fromtimestamp(nb.stat().st_mtime, timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f %Z")
        return stamp, "file time in the submissions folder"
    return None, "none"


def missing_from_gradebook(root: Path, assignments: list[str], db_url: str) -> list[str]:
    """The assignments whose notebooks nbgrader's gradebook does not know yet."""
    from nbgrader.api import Gradebook, MissingEntry

    missing = []
    with Gradebook(db_url) as gb:
        for name in assignments:
            try:
                known = {n.name for n in gb.find_assignment(name).notebooks}
            except MissingEntry:
                known = set()
            if not set(course.Assignment(name, root).notebooks()) <= known:
                missing.append(name)
    return missing


def ensure_in_gradebook(root: Path, assignments: str | list[str], db_url: str) -> None:
    """Make sure nbgrader's gradebook knows the assignments and their cells (generate_assignment writes them)."""
    from . import release

    names = [assignments] if isinstance(assignments, str) else list(assignments)
    release.register(missing_from_gradebook(root, names, db_url), root, db_url)


def write_result(root: Path, db_url: str, job: Job, result: grading.NotebookResult, executed_json: str | None) -> None:
    import warnings

    from nbgrader.api import Gradebook

    warnings.filterwarnings("ignore", module="nbgrader")
    warnings.filterwarnings("ignore", message=".*not in session.*")

    dest = root / "autograded" / job.student / job.assignment
    dest.mkdir(parents=True, exist_ok=True)
    if executed_json:
        nb = autograded_notebook(nbformat.reads(executed_json, as_version=4), result)
        tmp = dest / f".{job.notebook}.ipynb.tmp"
        tmp.write_text(nbformat.writes(nb))
        os.replace(tmp, dest / f"{job.notebook}.ipynb")
    timestamp, _ = submission_time(Path(job.path).parent)
    if timestamp:
        (dest / "timestamp.txt").write_text(timestamp)
    solution = course.read(course.Assignment(job.assignment, root).solution(job.notebook))
    by_ex = {e.id: e for e in result.exercises}
    with Gradebook(db_url) as gb:
        gb.update_or_create_student(job.student)
        try:
            gb.update_or_create_submission(job.assignment, job.student, timestamp=timestamp)
        except Exception:
            gb.db.rollback()
            gb.update_or_create_submission(job.assignment, job.student)
        for cell in solution.cells:
            gid = course.grade_id(cell)
            if not gid:
                continue
            ex = course.exercise_of(cell)
            meta = course.nbgrader_meta(cell)
            if meta.get("grade"):
                grade = gb.find_grade(gid, job.notebook, job.assignment, job.student)
                if ex in by_ex and course.is_tests(cell):
                    grade.auto_score = by_ex[ex].score
                    grade.needs_manual_grade = grade.manual_score is not None
                else:
                    grade.auto_score = None
                    grade.needs_manual_grade = True
            if meta.get("solution"):
                comment = gb.find_comment(gid, job.notebook, job.assignment, job.student)
                comment.auto_comment = "No response." if (ex in by_ex and by_ex[ex].status == "not attempted") else None
        gb.db.commit()


# ---------------------------------------------------------------- command


def discover(root: Path, subs: Path, assignments: list[str], students: list[str] | None):
    names = assignments or sorted({p.name for p in subs.glob("*/*") if p.is_dir()} &
                                  {a.name for a in course.assignments(root)})
    for name in names:
        a = course.Assignment(name, root)
        if not a.solution_dir.is_dir():
            raise SystemExit(f"unknown assignment {name!r} (no solutions/{name})")
        for sdir in sorted(p for p in subs.iterdir() if p.is_dir() and not p.name.startswith(".")):
            if students and sdir.name not in students:
                continue
            if not (sdir / name).is_dir():
                continue
            for nb in a.notebooks():
                yield a, nb, sdir.name, sdir / name / f"{nb}.ipynb"


class ReferenceFailed(RuntimeError):
    """A reference solution could not run where the submissions will: nothing may be graded."""


def check_references(refs: dict) -> None:
    bad = {k: v for k, v in refs.items() if isinstance(v, str)}
    if bad:
        lines = [f"  {a}/{n}: {why}" for (a, n), why in sorted(bad.items())]
        raise ReferenceFailed(
            "grade stopped before recording anything: the reference solution did not run where the "
            "submissions would run, so every submission would be judged wrongly.\n" + "\n".join(lines) +
            "\nCheck that the sandbox works (bubblewrap, run as root), that the kernels import this "
            f"autograder package ({Path(__file__).resolve().parent}), and that solutions/ passes its own tests.")


def grade_command(args) -> int:
    from . import check

    root = course.find_root()
    subs = Path(args.submissions).resolve() if args.submissions else root / "submitted"
    if not subs.is_dir():
        print(f"no submissions folder: {subs}", file=sys.stderr)
        return 2
    db_url = f"sqlite:///{root / 'gradebook.db'}"
    seed = args.seed if args.seed is not None else check.random_seed()
    todo = list(discover(root, subs, args.assignments, args.student))
    if not todo:
        print("nothing to grade", file=sys.stderr)
        return 2
    sandbox_on = not args.no_sandbox
    names = sorted({a.name for a, *_ in todo})

    jobs, done = [], []
    for a, nb, student, path in todo:
        job = Job(str(root), a.name, nb, student, str(path), seed, None, sandbox_on, job_key(root, a, nb, path))
        prior = None if args.force else load_result(root, job)
        if prior is not None and getattr(args, "retry_errors", False) and (prior.error or "").startswith("grader error"):
            prior = None
        (done if prior else jobs).append((job, prior))
    ref_keys = sorted({(job.assignment, job.notebook) for job, _ in jobs})
    results = {(j.student, j.assignment, j.notebook): r for j, r in done}
    if done:
        print(f"{len(done)} notebook(s) already graded and unchanged: kept")
    start = time.monotonic()
    workers = default_workers() if not args.workers else max(1, int(args.workers))
    from tqdm.auto import tqdm

    failed = 0
    bar = None

    def finish(job: Job, payload: tuple[str, str | None], meta: dict | None = None) -> None:
        """Record one job's result; whatever goes wrong here becomes that job's recorded result."""
        nonlocal failed
        try:
            result = grading.NotebookResult.from_json(payload[0])
            executed = payload[1]
        except Exception as exc:  # noqa: BLE001
            result, executed = failed_result(job, f"grader error: the result could not be read ({type(exc).__name__})"), None
        result.submitted_at, result.submitted_at_source = submission_time(Path(job.path).parent)
        try:
            write_result(root, db_url, job, result, executed)
        except Exception as exc:  # noqa: BLE001 - e.g. an output that would not serialise
            why = f"grader error: the result could not be recorded ({type(exc).__name__}: {str(exc)[:200]})"
            print(f"{job.student}/{job.assignment}/{job.notebook}: {why}", file=sys.stderr, flush=True)
            result = failed_result(job, outputs.safe_text(why))
            try:
                write_result(root, db_url, job, result, None)
            except Exception as again:  # noqa: BLE001
                print(f"  and the zero could not be written to the gradebook: {again!r}", file=sys.stderr)
        try:
            save_result(root, job, result, meta)
        except Exception as exc:  # noqa: BLE001
            print(f"{job.student}/{job.assignment}/{job.notebook}: result not cached ({exc!r})", file=sys.stderr)
        results[(job.student, job.assignment, job.notebook)] = result
        failed += bool(result.error)
        if bar is not None:
            bar.set_postfix(failed=failed)
            bar.update(1)

    pending = [job for job, _ in jobs]
    slurm_backend = getattr(args, "backend", "local") == "slurm"
    pooled = not slurm_backend and workers > 1 and len(pending) > 1
    try:
        if not pooled:  # everything first, here (for Slurm: before submitting)
            refs = {k: reference_job(str(root), *k, seed, sandbox_on) for k in ref_keys}
            check_references(refs)
            ensure_in_gradebook(root, names, db_url)
            for job in pending:
                job.refs = refs[(job.assignment, job.notebook)]
            bar = tqdm(total=len(jobs), desc="grading", unit="nb", disable=not jobs)
            if slurm_backend and pending:
                from . import slurm

                slurm.grade(pending, args, root / ".autograder" / "submitit", finish, failed_payload)
                workers = int(args.array_parallelism)
            else:
                for job in pending:
                    finish(job, run_job(job))
        else:
            ctx = multiprocessing.get_context("spawn")
            slots = ctx.Queue()
            for slot in worker_slots(workers):
                slots.put(slot)
            with cf.ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=pin_worker,
                                        initargs=(slots,)) as pool:
                # every reference first, in the pool, while this process registers the assignments;
                # nothing is recorded unless all of them ran
                ref_futures = {k: pool.submit(reference_job, str(root), *k, seed, sandbox_on) for k in ref_keys}
                ensure_in_gradebook(root, names, db_url)
                refs = {}
                for k, fut in ref_futures.items():
                    try:
                        refs[k] = fut.result()
                    except Exception as exc:  # noqa: BLE001 - the worker process itself died
                        refs[k] = f"the reference run's worker died ({type(exc).__name__})"
                check_references(refs)
                bar = tqdm(total=len(jobs), desc="grading", unit="nb", disable=not jobs)
                futures = {}
                for job in pending:
                    job.refs = refs[(job.assignment, job.notebook)]
                    futures[pool.submit(run_job, job)] = job
                for fut in cf.as_completed(futures):
                    job = futures[fut]
                    try:
                        payload = fut.result()
                    except Exception as exc:  # noqa: BLE001 - the worker process itself died
                        payload = failed_payload(job, f"grader error: worker died ({type(exc).__name__})")
                    finish(job, payload)
    except ReferenceFailed as exc:
        print(str(exc), file=sys.stderr)
        return 2
    if bar is not None:
        bar.close()
    print(table(results.values()))
    print(f"graded {len(jobs)} notebook(s) in {time.monotonic() - start:.1f} s with {workers} worker(s)")
    return 0


def table(results) -> str:
    rows = sorted(results, key=lambda r: (r.assignment, r.student, r.notebook))
    lines = [f"{'student':<16} {'notebook':<22} {'score':>9}  notes"]
    for r in rows:
        notes = []
        if r.error:
            notes.append(r.error)
        notes += r.tampering
        lines.append(f"{r.student:<16} {r.notebook:<22} {r.score:>4g}/{r.max_score:<4g}  {'; '.join(notes)[:120]}")
    return "\n".join(lines)
