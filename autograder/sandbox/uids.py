"""Sandbox user ids: a fresh one for every notebook, never one that still owns a process.

Ids are handed out in turn from a counter shared by every grading process of the machine
(flock on files under the lock folder), so an id comes back only after the others.  After a
run, every process of its id is killed until none is left; an id that cannot be cleared is
retired for the rest of the run.

The lock folder sits in the shared temporary folder, where another local account could make it
first (a folder of its own, mode 0777, with links planted inside to files root would then
truncate).  So the folder must be this user's own, writable by it alone, and not a link
(:func:`private_dir`), or grading refuses to start; files in it are opened without following links.
"""

from __future__ import annotations

import fcntl
import os
import secrets
import signal
import stat
import tempfile
import time
from pathlib import Path

from autograder.values.processes import signal_if


class SandboxUnavailable(RuntimeError):
    pass


UID_BASE = 61000

UID_COUNT = 4096

LOCK_DIR = Path(tempfile.gettempdir()) / "autograder-uids"



def user_processes(uid: int) -> list[int]:
    """The host pids of the processes running as ``uid``."""
    found = []
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                if p.stat().st_uid == uid:
                    found.append(int(p.name))
            except OSError:
                pass
    return found



def signal_as(pid: int, uid: int, sig: int) -> bool:
    """Send ``sig`` to ``pid`` only while it still runs as ``uid`` (:func:`signal_if`)."""
    return signal_if(pid, lambda p: os.stat(f"/proc/{p}").st_uid == uid, sig)


def kill_user(uid: int, timeout: float = 10.0) -> bool:
    """SIGKILL every process running as ``uid`` until none is left; whether none is.

    A backstop: the PID namespace of each kernel already takes its processes down with it.
    One pass over ``/proc`` would miss what was forked after the listing, so it repeats
    until a pass finds nothing (a process that re-forks cannot outrun it for long: each
    pass kills every process it lists, and ``RLIMIT_NPROC`` bounds how many there are)."""
    end = time.monotonic() + timeout
    while True:
        pids = user_processes(uid)
        if not pids:
            return True
        for pid in pids:
            signal_as(pid, uid, signal.SIGKILL)
        if time.monotonic() > end:
            return not user_processes(uid)
        time.sleep(0.002)  # a killed process is usually gone within milliseconds



RETIRED: list = []  # locks of user ids whose processes would not die: never handed out again here



_UID_COUNTER = "next"



def private_dir(path: Path) -> Path:
    """``path`` as a folder this user owns and alone can write: made 0700 when missing, refused otherwise."""
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    st = os.lstat(path)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o022:
        raise SandboxUnavailable(
            f"{path} is not a folder of this user that only it can write (a link, another account's folder, "
            "or writable by others): another account may have made it to steer the grader; remove it (or set "
            "TMPDIR to a private folder) and grade again")
    return path


def _open_private(path: Path, mode: str):
    """A file of the private lock folder, opened without following a link."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    return os.fdopen(fd, mode)


def claim_uid() -> tuple[int, object]:
    """A sandbox user id for one notebook, and the lock that holds it.

    Ids are handed out in turn from a counter shared by every grading process of the machine
    (so an id comes back only after the other ``UID_COUNT - 1``), skipping any id that another
    process holds or that still owns a process."""
    private_dir(LOCK_DIR)
    with _open_private(LOCK_DIR / _UID_COUNTER, "r+") as counter:
        fcntl.flock(counter, fcntl.LOCK_EX)
        counter.seek(0)
        text = counter.read().strip()
        start = int(text) if text.isdigit() else secrets.randbelow(UID_COUNT)
        for k in range(UID_COUNT):
            uid = UID_BASE + (start + k) % UID_COUNT
            f = _open_private(LOCK_DIR / str(uid), "r+")
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                f.close()
                continue
            if user_processes(uid):
                f.close()
                continue
            counter.seek(0)
            counter.truncate()
            counter.write(str((start + k + 1) % UID_COUNT))
            counter.flush()
            return uid, f
    raise SandboxUnavailable("no free sandbox user id")

