"""Each person's server on a shared machine: their own user id, and limits on memory and processes.

:class:`ClassSpawner` is JupyterHub's ``LocalProcessSpawner`` (a server runs as the person's local
account) that also puts the server, and so every kernel it starts, into a control group of that
person's own, with a memory limit (``mem_limit``, swap included where the machine accounts for it) and a
process limit (``max_processes``), before the server's code runs: a student who allocates too much or
forks without end stops their own kernels, never the class's.  Both cgroup layouts are handled (the
unified one and the per-controller one).  Where no cgroup can be written (a container without them)
the process limit still holds as the account's rlimit, and the hub's log says the memory limit does not.
"""

from __future__ import annotations

import os
import resource
import time
from pathlib import Path

from jupyterhub.spawner import LocalProcessSpawner
from traitlets import Integer, Unicode

CGROUP_ROOT = Path("/sys/fs/cgroup")
CGROUP_BASE = "autograder-class"  # the control group every person's group goes under


def _write(path: Path, text: str) -> bool:
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
            top.mkdir(exist_ok=True)
            _write(CGROUP_ROOT / "cgroup.subtree_control", " ".join(f"+{c}" for c in sorted(wanted)))
            _write(top / "cgroup.subtree_control", " ".join(f"+{c}" for c in sorted(wanted)))
            mine = top / name
            mine.mkdir(exist_ok=True)
        except OSError:  # not writable here: said below
            return [], ["memory", "processes"]
        if not ("memory" in wanted and mem_bytes and _write(mine / "memory.max", str(mem_bytes))):
            missing.append("memory")
        if "memory" in wanted and mem_bytes:
            _write(mine / "memory.swap.max", "0")
        if not ("pids" in wanted and _write(mine / "pids.max", str(max_processes))):
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
        wrote = [_write(mine / f, str(v)) for f, v in files.items() if v]
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


def stop_group(base: str, name: str, within: float = 10.0) -> tuple[int, list[int]]:
    """Kill every process in ``name``'s control groups until none is left: how many were killed, and what
    is left after ``within`` seconds.  Each is signalled through a pidfd after checking it is still in the
    group, so a process id reused by another process meanwhile is never signalled."""
    import signal

    killed: set[int] = set()
    end = time.monotonic() + within
    while (left := group_processes(base, name)) and time.monotonic() < end:
        for pid in left:
            try:
                fd = os.pidfd_open(pid)
            except OSError:  # gone already
                continue
            try:
                if _in_group(Path(f"/proc/{pid}/cgroup").read_text(), f"/{base}/{name}"):
                    signal.pidfd_send_signal(fd, signal.SIGKILL)
                    killed.add(pid)
            except OSError:  # it exited between the two
                pass
            finally:
                os.close(fd)
        time.sleep(0.05)
    return len(killed), group_processes(base, name)


class ClassSpawner(LocalProcessSpawner):
    """``LocalProcessSpawner`` with a per-person control group (memory, processes) and a process rlimit."""

    max_processes = Integer(256, help="Processes and threads one person's server may run at once.").tag(config=True)
    cgroup_base = Unicode(CGROUP_BASE, help="The control group the class's servers go under.").tag(config=True)

    def make_preexec_fn(self, name):
        setuid = super().make_preexec_fn(name)
        procs, missing = limit_groups(self.cgroup_base, name, int(self.mem_limit or 0), int(self.max_processes))
        if missing:
            self.log.warning("server of %s: no control group for %s here; the process limit holds as an rlimit",
                             name, " and ".join(missing))
        nproc = int(self.max_processes)

        def preexec():
            for path in procs:  # as root, before the server's code: it and all it starts are in its groups
                _write(path, str(os.getpid()))
            resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
            setuid()

        return preexec
