"""Control groups for the class server: each person's (with the class's limits on memory and processes), and
one per class for its hub, proxy and services; what is in one, and ending all of it.

A person's server and every kernel it starts stay in that person's group (:class:`autograder.hub.spawner.
ClassSpawner` puts it there), and a class's hub and what it starts stay in the hub's group (``hub start`` puts
it there), so ``hub stop`` can end what a server or a hub killed mid-run left behind without looking at any
other process.  Both cgroup layouts are handled: the unified one, and the per-controller one.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from autograder.values.processes import signal_if
from autograder.values.digest import sha

CGROUP_ROOT = Path("/sys/fs/cgroup")
CGROUP_BASE = "autograder-class"  # the control group every class's group goes under
HUB_GROUP = "the.hub"  # a dot, which no user name has (autograder.hub.class_roster.NAME): never a person's group


def class_base(class_dir: Path) -> str:
    """The control group of one class, under :data:`CGROUP_BASE`: its people's groups and its hub's
    (:data:`HUB_GROUP`) go under it, so that ending what one class left never touches another class's
    processes on the same machine, the servers of a person in both included."""
    return f"{CGROUP_BASE}/class-{sha(str(Path(class_dir).resolve()))[:16]}"


def join_group(base: str, name: str) -> bool:
    """Move this process into ``base/name`` (made if missing), where what it starts stays unless moved on; whether
    it could.  Meant for a ``preexec_fn``: it never raises."""
    unified = (CGROUP_ROOT / "cgroup.controllers").is_file()
    joined = False
    for top in ([CGROUP_ROOT] if unified else [CGROUP_ROOT / c for c in ("pids", "memory")]):
        try:
            (top / base / name).mkdir(parents=True, exist_ok=True)
            (top / base / name / "cgroup.procs").write_text(str(os.getpid()))
            joined = True
        except OSError:  # this hierarchy is not mounted or not writable: the other may be
            continue
    return joined


def write_control(path: Path, text: str) -> bool:
    """Write one control file; whether it took."""
    try:
        path.write_text(text)
        return True
    except OSError:  # a controller file this kernel lacks (no swap accounting): the others still apply
        return False


def limit_groups(base: str, name: str, mem_bytes: int, max_processes: int) -> tuple[list[Path], list[str]]:
    """Make (or update) ``name``'s control groups under ``base`` with the limits; return the
    ``cgroup.procs`` files a process joins them by, and what could not be limited."""
    procs, missing = [], []
    unified = CGROUP_ROOT / "cgroup.controllers"
    if unified.is_file():  # one hierarchy: controllers enabled down the tree
        wanted = {"memory", "pids"} & set(unified.read_text().split())
        top = CGROUP_ROOT / base
        try:
            level = CGROUP_ROOT
            for part in ("", *Path(base).parts):  # each level down to base hands the controllers on
                level = level / part if part else level
                level.mkdir(exist_ok=True)
                write_control(level / "cgroup.subtree_control", " ".join(f"+{c}" for c in sorted(wanted)))
            mine = top / name
            mine.mkdir(exist_ok=True)
        except OSError:  # not writable here: said below
            return [], ["memory", "processes"]
        if not ("memory" in wanted and mem_bytes and write_control(mine / "memory.max", str(mem_bytes))):
            missing.append("memory")
        if "memory" in wanted and mem_bytes:
            write_control(mine / "memory.swap.max", "0")
        if not ("pids" in wanted and write_control(mine / "pids.max", str(max_processes))):
            missing.append("processes")
        return [mine / "cgroup.procs"], missing
    for controller, files in (("memory", {"memory.limit_in_bytes": mem_bytes, "memory.memsw.limit_in_bytes": mem_bytes}),
                              ("pids", {"pids.max": max_processes})):
        mine = CGROUP_ROOT / controller / base / name
        try:
            mine.mkdir(parents=True, exist_ok=True)
        except OSError:  # this controller is not mounted or not writable: said in the log
            missing.append("memory" if controller == "memory" else "processes")
            continue
        wrote = [write_control(mine / f, str(v)) for f, v in files.items() if v]
        if not any(wrote):
            missing.append("memory" if controller == "memory" else "processes")
            continue
        procs.append(mine / "cgroup.procs")
    return procs, missing


def group_processes(base: str, name: str) -> list[int]:
    """The processes in ``name``'s control groups under ``base`` (either layout): what their server started."""
    found: set[int] = set()
    for procs in (CGROUP_ROOT / base / name / "cgroup.procs",
                  *(CGROUP_ROOT / c / base / name / "cgroup.procs" for c in ("memory", "pids"))):
        try:
            found.update(int(x) for x in procs.read_text().split())
        except (OSError, ValueError):  # no such group in this layout
            continue
    return sorted(found)


def _in_group(proc_cgroup: str, group: str) -> bool:
    """Whether a ``/proc/PID/cgroup`` text puts the process in ``group`` itself (``/base/sam`` is not
    ``/base/samantha``), in any hierarchy (``0::/base/sam``, or ``4:memory:/base/sam`` on version 1)."""
    return any(line.split(":", 2)[-1] == group for line in proc_cgroup.splitlines())


def wait_empty(base: str, name: str, within: float) -> bool:
    """Whether ``name``'s control groups under ``base`` empty by themselves within ``within`` seconds."""
    end = time.monotonic() + within
    while group_processes(base, name):
        if time.monotonic() > end:
            return False
        time.sleep(0.05)
    return True


def stop_group(base: str, name: str, within: float = 10.0) -> tuple[int, list[int]]:
    """Kill every process in ``name``'s control groups until none is left: how many were killed, and what
    is left after ``within`` seconds.  Each is signalled through a pidfd after checking it is still in the
    group, so a process id reused by another process meanwhile is never signalled."""
    killed: set[int] = set()
    end = time.monotonic() + within
    while (left := group_processes(base, name)) and time.monotonic() < end:
        for pid in left:
            if signal_if(pid, lambda p: _in_group(Path(f"/proc/{p}/cgroup").read_text(), f"/{base}/{name}"),
                         signal.SIGKILL):
                killed.add(pid)
        time.sleep(0.05)
    return len(killed), group_processes(base, name)


def running_classes() -> list[Path]:
    """The class folders of every class whose hub runs on this machine: each hub is in its class's group
    (:data:`HUB_GROUP`), started as ``jupyterhub -f CLASS_DIR/jupyterhub_config.py``."""
    found = set()
    for top in (CGROUP_ROOT, CGROUP_ROOT / "pids", CGROUP_ROOT / "memory"):
        for procs in (top / CGROUP_BASE).glob(f"class-*/{HUB_GROUP}/cgroup.procs"):
            try:
                pids = procs.read_text().split()
            except OSError:  # gone meanwhile
                continue
            for pid in pids:
                try:
                    argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
                except OSError:  # gone meanwhile
                    continue
                if "jupyterhub" in argv and "-f" in argv[:-1]:
                    found.add(Path(argv[argv.index("-f") + 1]).parent)
    return sorted(found)
