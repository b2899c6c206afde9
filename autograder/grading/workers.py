"""Where jobs run on this machine: in this process, or in a pool of worker processes pinned to a
GPU each (or a share of the cores).  The Slurm backend (:mod:`autograder.grading.slurm`) offers the
same two calls, so the ``grade`` command does not know which one it drives:

* ``references(notebooks, sandbox)`` (each notebook with its seed): each notebook's :class:`~autograder.values.records.Reference`;
* ``run(jobs, on_output)``: grade every job, handing each :class:`~autograder.grading.jobs.JobOutput`
  to ``on_output`` in this process as it arrives.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
import subprocess

from autograder.grading.jobs import failed_output, reference_job, run_job
from autograder.values.records import Reference


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


def _pin_worker(slots) -> None:
    os.environ.update(slots.get())


class LocalBackend:
    """Jobs in this process (one worker) or in a pool of ``workers`` processes."""

    def __init__(self, workers: int) -> None:
        self.workers = max(1, int(workers))
        self.pool: cf.ProcessPoolExecutor | None = None

    def __enter__(self) -> "LocalBackend":
        if self.workers > 1:
            ctx = multiprocessing.get_context("spawn")
            slots = ctx.Queue()
            for slot in worker_slots(self.workers):
                slots.put(slot)
            self.pool = cf.ProcessPoolExecutor(max_workers=self.workers, mp_context=ctx, initializer=_pin_worker,
                                               initargs=(slots,))
        return self

    def __exit__(self, *exc) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
            self.pool = None

    def references(self, notebooks: list, sandbox: bool) -> dict:
        """Each (notebook data, seed)'s :class:`~autograder.values.records.Reference`, by the data's ``key``."""
        if self.pool is None:
            return {d.key: reference_job(d, seed, sandbox) for d, seed in notebooks}
        futures = {d.key: (d, self.pool.submit(reference_job, d, seed, sandbox))
                   for d, seed in notebooks}
        out = {}
        for k, (d, fut) in futures.items():
            try:
                out[k] = fut.result()
            except Exception as exc:  # noqa: BLE001 - the worker process itself died
                out[k] = Reference(failure=f"the reference run's worker died ({type(exc).__name__})")
        return out

    def run(self, jobs: list, on_output) -> None:
        if self.pool is None:
            for job in jobs:
                on_output(job, run_job(job))
            return
        futures = {self.pool.submit(run_job, job): job for job in jobs}
        for fut in cf.as_completed(futures):
            job = futures[fut]
            try:
                out = fut.result()
            except Exception as exc:  # noqa: BLE001 - the worker process itself died
                out = failed_output(job, f"grader error: worker died ({type(exc).__name__})")
            on_output(job, out)
