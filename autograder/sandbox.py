"""Run a learner's kernel in a bubblewrap sandbox as an unprivileged user.

The kernel process tree gets (see docs/security.md):

* its own mount namespace holding only read-only system directories, the Python
  installation and the ``autograder`` package, a private ``/tmp`` and ``/dev/shm`` of bounded size,
  and read-write the one working directory of the submission being graded (no
  course directory, gradebook, ``solutions/`` or other submissions);
* its own pid, network (loopback only), ipc and uts namespaces, and a new session; the
  kernel is process 1 of its PID namespace (or bubblewrap's init is), so when it ends the
  kernel of the machine kills everything it started;
* a user id of its own, fresh for every notebook: never the id of a notebook that ran
  before while any process of that id is alive (:func:`claim_uid`); no capabilities,
  ``no_new_privs``;
* rlimits on data memory, processes and threads, file size and CPU time.

The kernel talks to the grader over ZeroMQ ``ipc`` sockets in a private folder
bound into the sandbox, since the sandbox has no network.

By default kernels come from a *zygote* (:mod:`autograder.zygote`): one sandbox per grading
process, started once, that has imported torch and forks a kernel per notebook.  Each fork
gets its own ``/tmp``, ``/dev/shm`` and IPC namespace, its own user id and limits, and sees
only the folder of the notebook it runs (every run's folder is made inside the zygote's
slot folder, which holds one run at a time).  ``AUTOGRADER_ZYGOTE=0`` starts every kernel in
a sandbox of its own instead.
"""

from __future__ import annotations

import atexit
import fcntl
import json
import os
import secrets
import signal
import subprocess
import threading
import time
import shutil
import sys
import tempfile
from pathlib import Path

from jupyter_client.manager import AsyncKernelManager

UID_BASE = 61000
UID_COUNT = 4096
# never the grading seed: each hidden test carries its own (autograder.grading.arm_hidden_tests)
ENV_KEEP = ("AUTOGRADER_MODE", "MPLBACKEND", "PYTHONWARNINGS", "CUDA_VISIBLE_DEVICES",
            "OMP_NUM_THREADS", "MKL_NUM_THREADS", "LANG", "LC_ALL", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE",
            "TORCHINDUCTOR_COMPILE_THREADS", "NVIDIA_VISIBLE_DEVICES", "TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR")
LOCK_DIR = Path(tempfile.gettempdir()) / "autograder-uids"


class SandboxUnavailable(RuntimeError):
    pass


def available() -> bool:
    return shutil.which("bwrap") is not None and shutil.which("setpriv") is not None and os.geteuid() == 0


class Sandbox:
    """One sandboxed kernel at a time; build a new one per notebook run."""

    tmp_size_mb = 1024

    def __init__(self) -> None:
        if not available():
            raise SandboxUnavailable("the sandbox needs bubblewrap (bwrap) and setpriv, run as root; "
                                     "install them with 'apt-get install bubblewrap util-linux' or run "
                                     "'make setup', or grade with --no-sandbox for trusted input only")
        self.uid = None
        self._lock = None
        self.zygote = zygote_enabled()
        self.raw_cmd: list[str] = []

    def tmp_parent(self) -> str | None:
        """Where a run's working folder must be made (inside the zygote's slot), or None for anywhere."""
        return str(_slot()) if self.zygote else None

    # -- user ids -----------------------------------------------------------------------
    def _claim_uid(self) -> int:
        uid, self._lock = claim_uid()
        return uid

    def release(self) -> None:
        if self.uid is not None:
            if not kill_user(self.uid):  # keep the id locked: it must not serve another notebook
                print(f"autograder: processes of sandbox user {self.uid} survived; the id is retired "
                      "for this run", file=sys.stderr, flush=True)
                _RETIRED.append(self._lock)
                self._lock = None
        if self._lock is not None:
            self._lock.close()
            self._lock = None
        self.uid = None

    # -- nbclient hooks -----------------------------------------------------------------
    def kernel_manager_kwargs(self, workdir: Path, limits) -> dict:
        self.uid = self._claim_uid()
        self.workdir = Path(workdir).resolve()
        self.limits = limits
        slot = _slot().resolve()
        self.zygote = self.zygote and _inside(self.workdir, slot)
        if self.zygote:  # the folders between the slot and the run's folder: traversable, not listable
            for d in self.workdir.parents:
                if d == slot or not _inside(d, slot):
                    break
                os.chmod(d, 0o711)
        # the connection folder and file (with the HMAC key) are the kernel's user's alone
        self.conn_dir = Path(tempfile.mkdtemp(prefix="autograder-kernel-", dir=self.tmp_parent()))
        os.chmod(self.conn_dir, 0o700)
        os.chown(self.conn_dir, self.uid, self.uid)
        for p in [self.workdir, *self.workdir.rglob("*")]:
            if not p.is_symlink():
                os.chown(p, self.uid, self.uid)
        sandbox = self

        class SandboxKernelManager(AsyncKernelManager):
            def __init__(self, **kw):
                super().__init__(**kw)
                self.transport = "ipc"
                self.ip = str(sandbox.conn_dir / "kernel")
                self.connection_file = str(sandbox.conn_dir / "kernel.json")

            def format_kernel_cmd(self, extra_arguments=None):
                cmd = super().format_kernel_cmd(extra_arguments)
                sandbox.raw_cmd = list(cmd)
                return sandbox.wrap(cmd)

            async def _async_launch_kernel(self, kernel_cmd, **kw):
                sandbox.env = kw.get("env") or {}
                kw["env"] = {"PATH": "/usr/bin:/bin"}
                os.chown(self.connection_file, sandbox.uid, sandbox.uid)
                os.chmod(self.connection_file, 0o400)
                if sandbox.zygote:
                    try:  # in this thread: the zygote must not belong to a short-lived helper thread
                        proc = sandbox.fork_kernel()
                    except (OSError, RuntimeError) as exc:  # the grader's fault: use a sandbox of its own
                        print(f"autograder: kernel zygote unavailable ({exc}); starting the kernel in a "
                              "sandbox of its own", file=sys.stderr, flush=True)
                    else:
                        prov = self.provisioner
                        prov.process, prov.pid, prov.pgid, prov.cwd = proc, proc.pid, proc.pid, str(sandbox.workdir)
                        self._reconcile_connection_info(prov.connection_info)
                        return None
                return await super()._async_launch_kernel(sandbox.wrap_env(kernel_cmd), **kw)

        self.kernel_manager_class = SandboxKernelManager
        return {}

    def limits_args(self) -> dict[str, int]:
        lim = self.limits
        return {"nproc": lim.max_processes, "data": lim.memory_mb << 20, "fsize": lim.max_file_mb << 20,
                "cpu": int(lim.notebook_timeout * 4), "core": 0}

    def wrap(self, cmd: list[str]) -> list[str]:
        """bwrap [namespaces, mounts] setpriv [drop to uid] prlimit [limits] -- the kernel command."""
        lim = self.limits_args()
        outer = bwrap_args([self.workdir, self.conn_dir], self.tmp_size_mb) + ["--chdir", str(self.workdir)]
        inner = [
            "setpriv", f"--reuid={self.uid}", f"--regid={self.uid}", "--clear-groups",
            "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--",
            "prlimit", f"--nproc={lim['nproc']}", f"--data={lim['data']}",
            f"--fsize={lim['fsize']}", f"--cpu={lim['cpu']}", "--core=0", "--",
        ]
        return outer + ["--clearenv", "@ENV@"] + inner + cmd

    def fork_kernel(self) -> "ZygoteProcess":
        """Start the kernel as a fork of this process's zygote; return a Popen-like handle."""
        cmd = self.raw_cmd
        i = next(k for k, a in enumerate(cmd) if a.endswith("ipykernel_launcher"))
        req = {"uid": self.uid, "cwd": str(self.workdir), "env": kernel_env(self.env), "argv": cmd[i + 1:],
               "limits": self.limits_args(), "tmp_bytes": self.tmp_size_mb << 20}
        return _zygote().spawn(req)

    def wrap_env(self, cmd: list[str]) -> list[str]:
        """Replace the ``@ENV@`` marker with the environment the kernel may see (nothing else leaks in)."""
        i = cmd.index("@ENV@")
        return cmd[:i] + setenv_args(kernel_env(self.env)) + cmd[i + 1:]

    def cleanup(self) -> None:
        self.release()
        shutil.rmtree(getattr(self, "conn_dir", ""), ignore_errors=True)


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
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        if time.monotonic() > end:
            return not user_processes(uid)
        time.sleep(0.01)


_RETIRED: list = []  # locks of user ids whose processes would not die: never handed out again here
_UID_COUNTER = "next"


def claim_uid() -> tuple[int, object]:
    """A sandbox user id for one notebook, and the lock that holds it.

    Ids are handed out in turn from a counter shared by every grading process of the machine
    (so an id comes back only after the other ``UID_COUNT - 1``), skipping any id that another
    process holds or that still owns a process."""
    LOCK_DIR.mkdir(mode=0o700, exist_ok=True)
    with open(LOCK_DIR / _UID_COUNTER, "a+") as counter:
        fcntl.flock(counter, fcntl.LOCK_EX)
        counter.seek(0)
        text = counter.read().strip()
        start = int(text) if text.isdigit() else secrets.randbelow(UID_COUNT)
        for k in range(UID_COUNT):
            uid = UID_BASE + (start + k) % UID_COUNT
            f = open(LOCK_DIR / str(uid), "w")
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


def default_sandbox() -> Sandbox | None:
    return Sandbox()


FIXED_ENV = {"HOME": "/tmp", "USER": "grader", "LOGNAME": "grader", "PATH": "/usr/bin:/bin",
             "MPLCONFIGDIR": "/tmp/matplotlib", "PYTHONDONTWRITEBYTECODE": "1",
             "JUPYTER_PLATFORM_DIRS": "1", "PYTHONNOUSERSITE": "1"}


def package_path() -> str:
    """The folder that holds the ``autograder`` package this process runs: kernels import the same
    copy (it is the one bound into the sandbox), whatever editable install the environment points at."""
    return str(Path(__file__).resolve().parent.parent)


def kernel_env(source) -> dict[str, str]:
    """The environment a sandboxed kernel sees: the kept variables of ``source`` and fixed ones."""
    env = {k: v for k, v in source.items() if k in ENV_KEEP}
    env.update(FIXED_ENV)
    env["PYTHONPATH"] = package_path()
    return env


def setenv_args(env: dict[str, str]) -> list[str]:
    return [a for k, v in sorted(env.items()) for a in ("--setenv", k, v)]


def bwrap_args(writable: list[Path], tmp_size_mb: int) -> list[str]:
    """bubblewrap's arguments: new namespaces, a read-only system and Python, private /tmp and
    /dev/shm, the GPUs if any, and ``writable`` folders bound read-write at their own paths."""
    ro = []
    seen: set[str] = set()
    dirs: list[str] = []

    def ro_bind(path: str) -> None:
        path = os.path.realpath(path)
        if path in seen or not os.path.exists(path):
            return
        seen.add(path)
        parent = Path(path).parent
        for d in reversed([parent, *parent.parents]):
            if str(d) not in ("/", "/tmp") and str(d) not in dirs and not str(d).startswith(("/usr", "/etc")):
                dirs.append(str(d))
        ro.extend(["--ro-bind", path, path])

    for p in (sys.base_prefix, sys.prefix, str(Path(__file__).resolve().parent)):
        ro_bind(p)
    for p in ("/usr/local/nvidia", "/usr/local/cuda"):
        ro_bind(p)
    mk = []
    for d in dirs:
        mk += ["--perms", "0755", "--dir", d]
    gpu = []
    for dev in sorted(Path("/dev").glob("nvidia*")):
        gpu += ["--dev-bind", str(dev), str(dev)]
    if gpu:
        gpu += ["--ro-bind", "/sys", "/sys"]
    # parents of the writable folders, traversable by the sandbox user (bwrap would make them 0700)
    parents = []
    for target in writable:
        for d in reversed(list(Path(target).parents)):
            if str(d) not in ("/", "/tmp") and str(d) not in parents and not str(d).startswith(("/usr", "/etc")):
                parents.append(str(d))
    mkw = []
    for d in parents:
        if d not in dirs:
            mkw += ["--perms", "0755", "--dir", d]
    binds = []
    for w in writable:
        binds += ["--bind", str(w), str(w)]
    return [
        "bwrap", "--die-with-parent", "--new-session",
        "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
        "--hostname", "sandbox",
        "--ro-bind", "/usr", "/usr",
        "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
        "--symlink", "usr/bin", "/bin", "--symlink", "usr/sbin", "/sbin",
        "--ro-bind", "/etc", "/etc",
        "--proc", "/proc", "--dev", "/dev", *gpu,
        # shared memory for DataLoader workers and multiprocessing, bounded like /tmp
        "--size", str(tmp_size_mb << 20), "--perms", "1777", "--tmpfs", "/dev/shm",
        "--size", str(tmp_size_mb << 20), "--perms", "1777", "--tmpfs", "/tmp",
        # after /tmp is mounted, so that a Python or course under /tmp stays visible
        *mk, *ro, *mkw, *binds,
    ]


# ---------------------------------------------------------------- the zygote


def zygote_enabled() -> bool:
    return os.environ.get("AUTOGRADER_ZYGOTE", "1") != "0"


def _inside(path: Path, folder: Path) -> bool:
    try:
        Path(path).resolve().relative_to(Path(folder).resolve())
        return True
    except ValueError:
        return False


_SLOT: Path | None = None
_SLOT_PID = 0
_ZYGOTE: "Zygote | None" = None
_ZYGOTE_LOCK = threading.Lock()


def _slot() -> Path:
    """This process's slot folder: the only host folder its zygote sees (one run at a time in it)."""
    global _SLOT, _SLOT_PID
    if _SLOT is None or _SLOT_PID != os.getpid():
        _SLOT = Path(tempfile.gettempdir()) / f"autograder-slot-{os.getpid()}-{secrets.token_hex(4)}"
        _SLOT.mkdir(mode=0o711)
        os.chmod(_SLOT, 0o711)
        _SLOT_PID = os.getpid()
        atexit.register(_remove_slot, _SLOT, os.getpid())
    return _SLOT


def _remove_slot(slot: Path, pid: int) -> None:
    if os.getpid() == pid:
        shutdown_zygote()
        shutil.rmtree(slot, ignore_errors=True)


_ZYGOTE_FAILED = 0  # pid of a process whose zygote would not start: it stops trying


def _zygote() -> "Zygote":
    global _ZYGOTE, _ZYGOTE_FAILED
    with _ZYGOTE_LOCK:
        if _ZYGOTE_FAILED == os.getpid():
            raise SandboxUnavailable("the kernel zygote did not start earlier in this process")
        if _ZYGOTE is None or not _ZYGOTE.alive() or _ZYGOTE.owner != os.getpid():
            try:
                _ZYGOTE = Zygote(_slot())
            except (OSError, RuntimeError):
                _ZYGOTE_FAILED = os.getpid()
                raise
        return _ZYGOTE


def shutdown_zygote() -> None:
    global _ZYGOTE
    if _ZYGOTE is not None and _ZYGOTE.owner == os.getpid():
        _ZYGOTE.close()
    _ZYGOTE = None


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
        if self.poll() is None:
            os.kill(self.pid, sig)

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
        cmd = bwrap_args([slot], Sandbox.tmp_size_mb) + [
            "--chdir", str(slot), "--clearenv", *setenv_args(kernel_env(os.environ)),
            # what forking a kernel needs: new mount, IPC, network and PID namespaces, a /proc and a
            # loopback for them, and dropping to the kernel's user
            "--cap-add", "CAP_SYS_ADMIN", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID",
            "--cap-add", "CAP_NET_ADMIN",
            sys.executable, "-m", "autograder.zygote",
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
