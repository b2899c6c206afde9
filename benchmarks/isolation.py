"""What kernel isolation costs: the time to start a sandboxed kernel and run one small cell.

    .venv/bin/python benchmarks/isolation.py            # writes benchmarks/results/isolation.json
    .venv/bin/python benchmarks/isolation.py --runs 30 --out /tmp/iso.json

Each run is what every graded notebook pays before its first cell: a fresh user id, a kernel forked
from the worker's zygote into its own mount, IPC, network and PID namespaces (or, with
``AUTOGRADER_ZYGOTE=0``, a bubblewrap sandbox of its own), one cell (``import torch`` and a sum),
then the kernel killed and its user id cleared.  The zygote's own start (once per worker) is timed
apart.  ``kernel_start`` is the part of each run before the first cell can run (the grader's phase
"kernel start": the user id claimed, the kernel forked into its namespaces and answering), with the
kernel's own CPU time in it and its time waiting for a CPU (``/proc/PID/task/*/schedstat``).
Run it from any checkout: it measures the ``autograder`` package it imports.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
KERNEL_START = "kernel start (sandbox + ipykernel ready)"
KERNEL_CPU = "kernel start: the kernel's CPU time"
KERNEL_QUEUED = "kernel start: the kernel waiting for a CPU"


class Starts:
    """A timing recorder (:mod:`autograder.values.timing`) that keeps each kernel start, and how much of
    it the kernel spent on a CPU and waiting for one (the rest is the grader's side and the fork)."""

    def __init__(self) -> None:
        self.seconds: list[float] = []
        self.cpu: list[float] = []
        self.queued: list[float] = []

    def add(self, name: str, seconds: float) -> None:
        {KERNEL_START: self.seconds, KERNEL_CPU: self.cpu, KERNEL_QUEUED: self.queued}.get(name, []).append(seconds)

    def unit(self, kind, labels):
        import contextlib

        return contextlib.nullcontext()


def one_run() -> float:
    from autograder.grading.execute import execute
    from autograder.sandbox import launch as sandbox

    sb = sandbox.Sandbox()
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("import torch\nprint(float(torch.ones(3).sum()))")])
    with sb.work_folder() as work:
        start = time.perf_counter()
        res = execute(nb, work, sandbox=sb)
        seconds = time.perf_counter() - start
    if res.error or "3.0" not in "".join(o.get("text", "") for o in res.nb.cells[0].outputs):
        raise RuntimeError(f"the kernel did not run the cell: {res.error}")
    return seconds


def summary(xs: list[float]) -> dict:
    return {"runs": len(xs), "median_s": round(statistics.median(xs), 4), "mean_s": round(statistics.mean(xs), 4),
            "min_s": round(min(xs), 4), "max_s": round(max(xs), 4)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "isolation.json"))
    args = p.parse_args()
    import autograder

    out: dict = {"package": str(Path(autograder.__file__).resolve().parent), "python": platform.python_version(),
                 "cpus": os.cpu_count(), "load_average": os.getloadavg()}
    from autograder.values import timing

    os.environ.pop("AUTOGRADER_ZYGOTE", None)
    start = time.perf_counter()
    one_run()  # starts this process's zygote
    out["zygote_start_and_first_kernel_s"] = round(time.perf_counter() - start, 3)
    starts = Starts()
    timing.install(starts)
    out["zygote_kernel"] = summary([one_run() for _ in range(args.runs)])
    out["zygote_kernel_start"] = summary(starts.seconds)
    out["zygote_kernel_start_cpu"] = summary(starts.cpu)
    out["zygote_kernel_start_waiting_for_cpu"] = summary(starts.queued)
    os.environ["AUTOGRADER_ZYGOTE"] = "0"
    starts.seconds, starts.cpu, starts.queued = [], [], []
    out["sandbox_per_kernel"] = summary([one_run() for _ in range(max(3, args.runs // 4))])
    out["sandbox_per_kernel_start"] = summary(starts.seconds)
    timing.install(None)
    out["load_average_after"] = os.getloadavg()
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    sys.exit(main())
