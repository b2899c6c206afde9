"""The grader's end of the kernel zygote (:mod:`autograder.sandbox.zygote` is the other end).

Each grading process starts one zygote, a bubblewrap sandbox whose only writable host folder
is this process's *slot* (one run's folder at a time inside it), and asks it for a kernel per
notebook.  :class:`ZygoteProcess` is the part of ``subprocess.Popen`` that jupyter_client
uses, for a kernel the zygote forked: process 1 of its own PID namespace, so killing it takes
down everything it started.
"""

from __future__ import annotations

import atexit
import fcntl
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from autograder.sandbox.bwrap import bwrap_args, kernel_env, setenv_args
from autograder.sandbox.uids import SandboxUnavailable, signal_as

TMP_SIZE_MB = 1024  # the private /tmp and /dev/shm of every sandbox

def zygote_enabled() -> bool:
    return os.environ.get("AUTOGRADER_ZYGOTE", "1") != "0"



def inside(path: Path, folder: Path) -> bool:
    try:
        Path(path).resolve().relative_to(Path(folder).resolve())
        return True
    except ValueError:
        return False



_SLOT: Path | None = None

_SLOT_PID = 0

_ZYGOTE: "Zygote | None" = None

_ZYGOTE_LOCK = threading.Lock()



def slot() -> Path:
    """This process's slot folder: the only host folder its zygote sees (one run at a time in it)."""
    global _SLOT, _SLOT_PID
    if _SLOT is None or _SLOT_PID != os.getpid():
        base = Path(tempfile.gettempdir())
        reap_stale_slots(base)
        _SLOT = base / f"autograder-slot-{os.getpid()}-{secrets.token_hex(4)}"
        lock = _hold_slot_lock(_SLOT)  # before the folder exists: a slot is never left without its lock
        _SLOT.mkdir(mode=0o711)
        os.chmod(_SLOT, 0o711)
        _SLOT_PID = os.getpid()
        atexit.register(_remove_slot, _SLOT, os.getpid(), lock)
    return _SLOT



def _lock_path(slot_dir: Path) -> Path:
    return slot_dir.with_name(slot_dir.name + ".lock")



def _hold_slot_lock(slot_dir: Path) -> int:
    """Lock the slot for as long as this process lives (the kernel drops a dead process's lock).

    The lock file is locked under a name no reaper looks at, then renamed to its own: a reaper never
    finds a slot's lock file unlocked while its owner lives, and a process killed before the rename
    has made no folder yet."""
    fresh = slot_dir.with_name(f".{slot_dir.name}.lock-new")
    fd = os.open(fresh, os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_WRONLY | os.O_CLOEXEC, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    os.replace(fresh, _lock_path(slot_dir))
    return fd



def reap_stale_slots(base: Path) -> int:
    """Remove the slots of grading processes that died without cleaning up (killed, out of memory, a
    node's job limit); how many.  A slot is stale when nothing holds its lock."""
    removed = 0
    for lock in base.glob("autograder-slot-*.lock"):
        try:
            fd = os.open(lock, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
        except OSError:  # gone, or a link: not a slot lock of this user's
            continue
        slot = lock.with_name(lock.name[:-len(".lock")])
        try:
            mine = os.fstat(fd).st_uid == os.geteuid() and os.lstat(slot).st_uid == os.geteuid()
        except OSError:  # no slot folder: only the lock file is left to remove, if it is this user's
            mine = os.fstat(fd).st_uid == os.geteuid()
        if not mine:  # another account's files in the shared folder: never removed for it
            os.close(fd)
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)  # its owner is alive
            continue
        try:
            shutil.rmtree(slot, ignore_errors=True)
            lock.unlink(missing_ok=True)
            removed += 1
        finally:
            os.close(fd)
    return removed



def _remove_slot(slot: Path, pid: int, lock: int) -> None:
    if os.getpid() == pid:
        shutdown_zygote()
        shutil.rmtree(slot, ignore_errors=True)
        _lock_path(slot).unlink(missing_ok=True)
        os.close(lock)



_ZYGOTE_FAILED = 0  # pid of a process whose zygote would not start: it stops trying



def zygote() -> "Zygote":
    global _ZYGOTE, _ZYGOTE_FAILED
    with _ZYGOTE_LOCK:
        if _ZYGOTE_FAILED == os.getpid():
            raise SandboxUnavailable("the kernel zygote did not start earlier in this process")
        if _ZYGOTE is None or not _ZYGOTE.alive() or _ZYGOTE.owner != os.getpid():
            try:
                _ZYGOTE = Zygote(slot())
            except (OSError, RuntimeError):
                _ZYGOTE_FAILED = os.getpid()
                raise
        return _ZYGOTE



def shutdown_zygote() -> None:
    """Stop this process's zygote (the next kernel starts a new one, and a failed start is tried again)."""
    global _ZYGOTE, _ZYGOTE_FAILED
    if _ZYGOTE is not None and _ZYGOTE.owner == os.getpid():
        _ZYGOTE.close()
    _ZYGOTE = None
    _ZYGOTE_FAILED = 0



class ZygoteProcess:
    """The part of ``subprocess.Popen`` that jupyter_client uses, for a kernel forked by the zygote."""

    def __init__(self, pid: int, uid: int) -> None:
        self.pid, self.uid = pid, uid
        self.returncode: int | None = None
        self.stdin = self.stdout = self.stderr = None

    def poll(self) -> int | None:
        if self.returncode is None:
            try:
                st = os.stat(f"/proc/{self.pid}")
                state = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
                if st.st_uid != self.uid or state in ("Z", "X"):
                    self.returncode = -signal.SIGKILL
            except (OSError, IndexError):
                self.returncode = -signal.SIGKILL
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        end = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if end is not None and time.monotonic() > end:
                raise subprocess.TimeoutExpired("kernel", timeout)
            time.sleep(0.05)
        return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.poll() is None and signal_as(self.pid, self.uid, sig):
            if sig == signal.SIGKILL:
                self._settle()

    def _settle(self, within: float = 0.2) -> None:
        """Wait (briefly) for a killed kernel to be gone.  jupyter_client checks right after the kill and,
        finding it alive, checks again 0.1 s later: a kernel shut down waited about that long for nothing."""
        end = time.monotonic() + within
        while self.poll() is None and time.monotonic() < end:
            time.sleep(0.001)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)



class Zygote:
    """The grader's end of one zygote: a sandbox started once that forks kernels on request."""

    start_timeout = 120.0

    def __init__(self, slot: Path) -> None:
        self.owner = os.getpid()
        self.slot = slot
        cmd = bwrap_args([slot], TMP_SIZE_MB) + [
            "--chdir", str(slot), "--clearenv", *setenv_args(kernel_env(os.environ)),
            # what forking a kernel needs: new mount, IPC, network and PID namespaces, a /proc and a
            # loopback for them, and dropping to the kernel's user
            "--cap-add", "CAP_SYS_ADMIN", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID",
            "--cap-add", "CAP_NET_ADMIN",
            sys.executable, "-m", "autograder.sandbox.zygote",
        ]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     env={"PATH": "/usr/bin:/bin"}, start_new_session=True)
        hello = self._read(self.start_timeout)
        if not hello or not hello.get("ready"):
            self.close()
            raise SandboxUnavailable("the kernel zygote did not start (run with AUTOGRADER_ZYGOTE=0 to "
                                     "start each kernel in a sandbox of its own)")
        self.lock = threading.Lock()

    def _read(self, timeout: float) -> dict | None:
        import select

        end = time.monotonic() + timeout
        line = b""
        fd = self.proc.stdout.fileno()
        while not line.endswith(b"\n"):
            left = end - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None
            chunk = os.read(fd, 1)
            if not chunk:
                return None
            line += chunk
        return json.loads(line)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def spawn(self, req: dict) -> ZygoteProcess:
        with self.lock:
            self.proc.stdin.write((json.dumps(req) + "\n").encode())
            self.proc.stdin.flush()
            reply = self._read(60.0)
        if not reply or "pid" not in reply:
            why = (reply or {}).get("error") or "no answer"
            raise RuntimeError(f"the zygote could not start a kernel: {why}")
        host = _host_pid(req["uid"], reply["pid"])
        if host is None:
            raise RuntimeError("the kernel started by the zygote vanished at once")
        return ZygoteProcess(host, req["uid"])

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                self.proc.kill()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass



def _host_pid(uid: int, ns_pid: int) -> int | None:
    """The host pid of the process running as ``uid`` whose pid in the zygote's namespace is ``ns_pid``
    (the kernel: process 1 of a PID namespace below the zygote's, so its ``NSpid`` line reads
    host pid, zygote's-namespace pid, 1)."""
    for p in Path("/proc").iterdir():
        if not p.name.isdigit():
            continue
        try:
            if p.stat().st_uid != uid:
                continue
            for line in (p / "status").read_text().splitlines():
                if line.startswith("NSpid:") and ns_pid in [int(x) for x in line.split()[2:-1]]:
                    return int(p.name)
        except (OSError, ValueError):
            continue
    return None

