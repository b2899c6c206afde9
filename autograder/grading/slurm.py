"""``autograder grade --backend slurm``: one Slurm job-array task per chunk of submissions.

Jobs are submitted with submitit (its default ``srun`` mode, so a cancelled job
leaves no orphan).  Each task grades its chunk with the same worker code as the
local backend (sandbox included) and writes one JSON file per notebook into the
submitit folder, which must be on a filesystem shared with the compute nodes.
The grader's process polls for those files and is the only writer of the
gradebook.  Nothing a job produced is unpickled: results are read as JSON.
:class:`SlurmBackend` offers the same calls as :class:`autograder.grading.workers.LocalBackend`.

Without Slurm accounting, ``sacct`` knows nothing, so a job's end is read from
``squeue`` and its reason (time limit, cancelled, died) from its own log.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from autograder.grading.jobs import JobOutput, failed_output, reference_job, run_job
from autograder.values.files import write_atomic

SCANCEL_TIMEOUT = 20  # scancel hangs when no controller answers


class TimeLimitReached(BaseException):
    """Slurm's warning signal before the time limit (a BaseException, so no worker code swallows it)."""


class JobCancelled(BaseException):
    """SIGTERM from Slurm: the task was cancelled (scancel, preemption)."""


_cancelled = False


def _on_time_limit(signum, frame):
    raise TimeLimitReached()


def _on_cancel(signum, frame):
    global _cancelled
    _cancelled = True
    raise JobCancelled()


def run_chunk(jobs: list, outdir: str) -> int:
    """Runs on a compute node: grade each job and write its result as JSON (atomically)."""
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    signal.signal(signal.SIGUSR2, _on_time_limit)
    signal.signal(signal.SIGTERM, _on_cancel)
    timed_out = False
    for job in jobs:
        if timed_out:
            output = failed_output(job, "the Slurm job hit its time limit before this notebook")
        elif _cancelled:
            output = failed_output(job, "the Slurm job was cancelled before this notebook")
        else:
            try:
                output = run_job(job)
            except TimeLimitReached:
                timed_out = True
                output = failed_output(job, "the Slurm job hit its time limit")
            except JobCancelled:
                output = failed_output(job, "the Slurm job was cancelled")
            if _cancelled:  # the kernel may die of the same signal before the grader hears it
                output = failed_output(job, "the Slurm job was cancelled")
        output.runner = {"node": os.uname().nodename, "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
                         "slurm_job_id": os.environ.get("SLURM_JOB_ID")}
        write_atomic(out / f"{job.key}.{job.student}.json", json.dumps(output.to_dict()))
    return len(jobs)


def _squeue_ids() -> set[str] | None:
    try:
        out = subprocess.run(["squeue", "-h", "-o", "%i"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0:
        return None
    ids = set()
    for line in out.stdout.split():
        ids.add(line.strip())
        if "_" in line and "[" in line:  # pending array range, e.g. 12_[3-5%2]
            ids.add(line.split("_")[0] + "_*")
    return ids


def _still_queued(job_id: str, queued: set[str]) -> bool:
    base = job_id.split("_")[0]
    return job_id in queued or f"{base}_*" in queued


def _reason(sjob) -> str:
    text = ""
    for p in (sjob.paths.stderr, sjob.paths.stdout):
        try:
            text += Path(p).read_text(errors="replace")[-20000:]
        except OSError:
            pass
    if "DUE TO TIME LIMIT" in text or "TIMEOUT" in text:
        return "the Slurm job hit its time limit"
    if "CANCELLED" in text:
        return "the Slurm job was cancelled"
    if "Traceback" in text:
        return "the Slurm job failed: " + text.strip().splitlines()[-1][:200]
    return "the Slurm job ended without a result (node failure, preemption or an out-of-memory kill)"


def cancel(job_ids: list[str]) -> None:
    if not job_ids:
        return
    try:
        subprocess.run(["scancel", *sorted({j.split("_")[0] for j in job_ids})], timeout=SCANCEL_TIMEOUT,
                       capture_output=True)
    except (OSError, subprocess.TimeoutExpired):
        pass


@dataclass
class SlurmOptions:
    """What an instructor may set of the array ``grade --backend slurm`` submits."""

    partition: str | None = None
    gpus_per_job: int = 0
    time_limit: int = 30  # minutes per task
    array_parallelism: int = 16
    chunk: int = 1  # notebooks per task
    cpus_per_job: int = 2
    mem_gb: int | None = None


class SlurmBackend:
    """Jobs as Slurm array tasks; references run here first, in this process."""

    def __init__(self, args: SlurmOptions, folder: Path) -> None:
        self.args, self.folder = args, folder
        self.workers = int(args.array_parallelism)

    def __enter__(self) -> "SlurmBackend":
        return self

    def __exit__(self, *exc) -> None:
        pass

    def references(self, notebooks: list, sandbox: bool) -> dict:
        return {d.key: reference_job(d, seed, sandbox) for d, seed in notebooks}

    def run(self, jobs: list, on_output) -> None:
        if jobs:
            grade(jobs, self.args, self.folder, on_output)


def grade(jobs: list, args: SlurmOptions, folder: Path, on_output) -> None:
    """Submit ``jobs`` as an array, then hand each output to ``on_output(job, output)`` as it arrives."""
    import submitit

    chunk = max(1, int(getattr(args, "chunk", 1) or 1))
    chunks = [jobs[i:i + chunk] for i in range(0, len(jobs), chunk)]
    outdir = folder / "results"
    ex = submitit.SlurmExecutor(folder=folder / "%j")
    minutes = int(args.time_limit)
    # Slurm warns a task with SIGUSR2 this many seconds before its limit; the task then records the reason
    warn = min(90, max(10, minutes * 60 // 4))
    params = dict(time=minutes, signal_delay_s=warn, array_parallelism=int(args.array_parallelism),
                  cpus_per_task=int(getattr(args, "cpus_per_job", 2) or 2), job_name="autograder")
    if args.partition:
        params["partition"] = args.partition
    if args.gpus_per_job:
        params["gres"] = f"gpu:{int(args.gpus_per_job)}"
    if getattr(args, "mem_gb", None):
        params["mem"] = f"{int(args.mem_gb)}G"
    ex.update_parameters(**params)
    sjobs = ex.map_array(run_chunk, chunks, [str(outdir)] * len(chunks))
    print(f"submitted {len(chunks)} Slurm array task(s): job {sjobs[0].job_id.split('_')[0]}", flush=True)
    pending = {}
    for sjob, part in zip(sjobs, chunks):
        for job in part:
            pending[outdir / f"{job.key}.{job.student}.json"] = (job, sjob)
    gone_since: dict[str, float] = {}
    try:
        while pending:
            for path in list(pending):
                if path.is_file():
                    job, _ = pending.pop(path)
                    try:
                        output = JobOutput.from_dict(json.loads(path.read_text()))
                    except (OSError, ValueError, KeyError, TypeError) as exc:
                        output = failed_output(job, f"grader error: the task's result could not be read ({exc!r})")
                    on_output(job, output)
            if not pending:
                break
            queued = _squeue_ids()
            now = time.monotonic()
            for path, (job, sjob) in list(pending.items()):
                if queued is None or _still_queued(sjob.job_id, queued):
                    gone_since.pop(sjob.job_id, None)
                    continue
                # left the queue: give the shared filesystem a moment before calling it lost
                first = gone_since.setdefault(sjob.job_id, now)
                if now - first > 10 and not path.is_file():
                    pending.pop(path)
                    output = failed_output(job, _reason(sjob))
                    output.runner = {"slurm_job_id": sjob.job_id}
                    on_output(job, output)
            time.sleep(1.0)
    except KeyboardInterrupt:
        cancel([s.job_id for _, s in pending.values()])
        raise
