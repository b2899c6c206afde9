"""The grading benchmark's profile: where one job's time goes, from the grader's own timing hook
(:mod:`autograder.values.timing`), and the start-up costs measured apart."""

from __future__ import annotations

import contextlib
import json
import os
import statistics
import subprocess
import time
from pathlib import Path

from grading_measure import BIN, PY, env_for_tools  # noqa: E402


class Acc:
    """Time accumulators for the job (or reference run) being graded."""

    def __init__(self):
        self.stack: list[dict] = []
        self.jobs: list[dict] = []
        self.refs: list[dict] = []
        self.writes: dict[str, dict] = {}
        self.registration: list[dict] = []
        self.other: dict[str, float] = {}

    def add(self, phase: str, seconds: float) -> None:
        target = self.stack[-1]["phases"] if self.stack else self.other
        target[phase] = target.get(phase, 0.0) + seconds

    @contextlib.contextmanager
    def unit(self, kind: str, labels: dict):
        """A unit of work the grader announces (autograder.values.timing.unit)."""
        if kind in ("job", "reference"):
            with self.scope(dict(labels), self.jobs if kind == "job" else self.refs):
                yield
        elif kind == "write":
            record = {"phases": self.writes.setdefault(f"{labels['student']}/{labels['notebook']}", {})}
            self.stack.append(record)
            try:
                yield
            finally:
                self.stack.pop()
        elif kind == "registration":
            t = time.perf_counter()
            try:
                yield
            finally:
                self.registration.append({"assignment": f"{len(labels.get('assignments', []))} assignments at once",
                                          "seconds": time.perf_counter() - t})
        else:
            yield

    @contextlib.contextmanager
    def scope(self, record: dict, into: list):
        record.setdefault("phases", {})
        self.stack.append(record)
        t = time.perf_counter()
        try:
            yield record
        finally:
            record["total"] = time.perf_counter() - t
            self.stack.pop()
            into.append(record)


def install_timers(acc: "Acc") -> list[str]:
    """Listen to the grader's own timing hook (:mod:`autograder.values.timing`); nothing is patched."""
    from autograder.values import timing

    timing.install(acc)
    return []


def micro(cmd: list[str], reps: int = 3, env: dict | None = None) -> dict:
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        subprocess.run(cmd, env=env or env_for_tools(), capture_output=True, timeout=600)
        times.append(time.perf_counter() - t)
    return {"min_s": round(min(times), 3), "median_s": round(statistics.median(times), 3)}


def profile_main(args) -> int:
    """The ``_profile`` subcommand: grade with timers, then measure start-up costs apart."""
    course_dir = Path(args.course).resolve()
    os.chdir(course_dir)
    os.environ["AUTOGRADER_COURSE_ROOT"] = str(course_dir)
    from autograder import cli
    from autograder.commands import grade as batch

    acc = Acc()
    missing = install_timers(acc)
    argv = ["grade", "--submissions", args.submissions, "--workers", "1", "--force"]
    for s in args.student or []:
        argv += ["--student", s]
    gargs = cli.build_parser().parse_args(argv)
    print("profile: grading", flush=True)
    t = time.perf_counter()
    rc = batch.run(gargs)
    wall = time.perf_counter() - t
    for job in acc.jobs:
        job["phases"].update(acc.writes.get(f"{job['student']}/{job['notebook']}", {}))

    print("profile: start-up costs", flush=True)
    import nbformat

    from autograder.grading import execute as ex_mod
    from autograder.sandbox import launch as sb_mod

    kernel = {}
    kinds = [("unsandboxed", lambda: None, "1")]
    if sb_mod.available():
        kinds += [("sandboxed, a sandbox per kernel", sb_mod.Sandbox, "0"),
                  ("sandboxed, forked from the zygote", sb_mod.Sandbox, "1")]
    for label, make, zygote in kinds:
        times = []
        os.environ["AUTOGRADER_ZYGOTE"] = zygote
        for _ in range(3):
            sb = make()
            with ex_mod.work_folder(sb, "profile-") as tmp:
                nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("pass")])
                scratch = {"phases": {}}
                with acc.scope(scratch, []):
                    ex_mod.execute(nb, tmp, sandbox=sb)
                times.append(scratch["phases"])
        kernel[label] = {k: round(statistics.median([t.get(k, 0.0) for t in times]), 3)
                         for k in sorted({k for t in times for k in t})}
    startup = {
        "python -c pass": micro([PY, "-c", "pass"]),
        "python -c 'import torch'": micro([PY, "-c", "import torch"]),
        "grader imports (autograder.commands.grade, sandbox, nbclient, nbgrader.api)":
            micro([PY, "-c", "import autograder.commands.grade, autograder.sandbox.launch, nbclient, nbgrader.api"]),
        "python -m autograder --help": micro([PY, "-m", "autograder", "--help"]),
        "jupyter nbconvert --version": micro([str(BIN / "jupyter"), "nbconvert", "--version"]),
    }
    Path(args.out).write_text(json.dumps({
        "rc": rc, "grade_command_s": round(wall, 2), "not_timed": missing,
        "registration": acc.registration, "references": acc.refs, "jobs": acc.jobs,
        "outside_jobs": acc.other, "kernel_start_alone": kernel, "startup": startup}, indent=1))
    return 0
