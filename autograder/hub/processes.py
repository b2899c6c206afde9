"""The processes of a class server: whether its hub runs, and ending what a hub or a server killed mid-run left.

A class's hub, its proxy and its services run in the class's hub group, and each person's server with every
kernel it started in that person's group (:mod:`autograder.hub.groups`); on Slurm, each server is a batch job
named for the class (:func:`autograder.hub.config.server_job_name`).  ``autograder hub stop`` and ``start`` end
only what those hold: never another class's processes, nor a person's own (a login).
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

from autograder.hub.config import server_job_name
from autograder.hub.groups import HUB_GROUP, class_base, stop_group, wait_empty
from autograder.hub.layout import ClassDescription, ClassDir


def hub_pid(where: ClassDir) -> int | None:
    """The hub's process id when it runs."""
    try:
        pid = int(where.pid_file.read_text().strip())
        command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except (OSError, ValueError):  # no pid file, or no such process
        return None
    # a hub killed mid-run leaves its pid file: that pid may be another process's by now
    return pid if str(where.hub_config).encode() in command else None


def default_signals() -> None:
    """In the hub's process, before it runs: every signal delivered and handled as by default.  A command started
    in the background of a script (``autograder hub start &``, nohup, cron) inherits SIGINT and SIGQUIT ignored,
    and the hub's servers and services would inherit it from the hub; JupyterHub stops each of them with SIGINT,
    and waits for one that ignores it, so ``hub stop`` ran out of time and left the class running."""
    signal.pthread_sigmask(signal.SIG_SETMASK, set())
    for sig in (signal.SIGINT, signal.SIGQUIT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


def settle(where: ClassDir, within: float = 10) -> None:
    """Give what a hub that stopped as asked has just signalled the time to exit by itself: the hub sends its
    proxy SIGTERM and exits without waiting for it, and a server's kernels may outlive the server by a moment.
    Neither is a leftover to kill and report."""
    end = time.monotonic() + within
    base = class_base(where.root)
    for name in [HUB_GROUP, *class_members(where)]:
        wait_empty(base, name, max(0.0, end - time.monotonic()))


def class_members(where: ClassDir) -> list[str]:
    """Everyone the class's last start listed."""
    if not where.description.is_file():
        return []
    d = ClassDescription.load(where.description)
    return sorted(set(d.students + d.instructors))


def end_left_hub(where: ClassDir, whose: str = "an earlier hub of this class") -> int:
    """End what a hub killed mid-run (or one that did not stop in time) left in its group: its proxy, still
    holding the class's address, and its services, the formgrader among them, holding their ports with the
    dead hub's credentials, so that a new hub's own would fail to start."""
    n, left = stop_group(class_base(where.root), HUB_GROUP)
    if n:
        print(f"stopped what {whose} left running (its proxy and services: {n} process(es))")
    if left:
        return _stuck(f"{whose} left", left)
    return 0


def _stuck(whose: str, pids: list[int]) -> int:
    """The one line for processes SIGKILL did not end: the system holds them, so only a later stop can."""
    print(f"processes {whose} outlived SIGKILL for 10 s: {', '.join(map(str, pids))} "
          "(stuck in the system, as on a hung file system); run autograder hub stop again once it answers")
    return 1


def _server_jobs(job_name: str, members: list[str]) -> list[str] | None:
    """``JOBID user`` of each learner-server job of ``members`` in Slurm's queue; None when Slurm cannot say."""
    try:
        out = subprocess.run(["squeue", "-h", "-o", "%i %u", f"--name={job_name}", f"--user={','.join(members)}",
                              "--states=PENDING,RUNNING,SUSPENDED,CONFIGURING"],
                             capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):  # no squeue here, or the controller does not answer
        return None
    if out.returncode != 0:
        return None
    return [line for line in out.stdout.splitlines() if line.strip()]


def end_left_servers(where: ClassDir) -> int:
    """End what the hub left of its servers (a hub killed mid-shutdown, a server that did not stop in time and
    was killed without its kernels, a ``scancel`` lost on a busy controller): on Slurm, their jobs, which would
    hold a node's share until their time limit; on this machine, whatever is left in each person's control
    group, where their server put all it started (never their other processes, such as a login)."""
    members = class_members(where)
    if not members:
        return 0
    if ClassDescription.load(where.description).spawner == "slurm":
        return _cancel_left_jobs(server_job_name(where.root), members)
    return _kill_left_processes(class_base(where.root), members)


def _kill_left_processes(base: str, members: list[str]) -> int:
    killed, stuck = {}, {}
    for name in members:
        n, left = stop_group(base, name)
        if n:
            killed[name] = n
        if left:
            stuck[name] = left
    if killed:
        print(f"stopped what the hub left running of the servers of {', '.join(killed)} "
              f"({sum(killed.values())} process(es))")
    if stuck:
        return _stuck(f"of the servers of {', '.join(stuck)}", [p for ps in stuck.values() for p in ps])
    return 0


def _cancel_left_jobs(job_name: str, members: list[str]) -> int:
    left = _server_jobs(job_name, members)
    if left is None:
        print("could not ask Slurm whether servers of the class are still queued (squeue failed): "
              f"check with: squeue --name={job_name}")
        return 1
    if not left:
        return 0
    ids = [line.split()[0] for line in left]
    subprocess.run(["scancel", *ids], capture_output=True, text=True, timeout=60)
    deadline = time.monotonic() + 60
    while (still := _server_jobs(job_name, members)) and time.monotonic() < deadline:
        time.sleep(1)
    if still:
        print(f"{len(still)} server job(s) of the class are still in Slurm's queue after scancel: "
              f"{', '.join(line.split()[0] for line in still)}; cancel them with scancel")
        return 1
    print(f"cancelled {len(ids)} server job(s) the hub left running in Slurm: "
          + ", ".join(f"{line.split()[1]} (job {line.split()[0]})" for line in left))
    return 0
