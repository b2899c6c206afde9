"""Run a learner's kernel in a bubblewrap sandbox as an unprivileged user.

The kernel process tree gets (see docs/security.md):

* its own mount namespace holding only read-only system directories, the Python
  installation and the ``autograder`` package, a private ``/tmp`` and ``/dev/shm`` of bounded size,
  and read-write the one working directory of the submission being graded (no
  course directory, gradebook, ``solutions/`` or other submissions);
* its own pid, network (loopback only), ipc and uts namespaces, and a new session;
* a user id of its own (one per concurrent sandbox), no capabilities, ``no_new_privs``;
* rlimits on data memory, processes and threads, file size and CPU time.

The kernel talks to the grader over ZeroMQ ``ipc`` sockets in a private folder
bound into the sandbox, since the sandbox has no network.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import sys
import tempfile
from pathlib import Path

from jupyter_client.manager import AsyncKernelManager

UID_BASE = 61000
UID_COUNT = 512
ENV_KEEP = ("AUTOGRADER_MODE", "AUTOGRADER_SEED", "MPLBACKEND", "PYTHONWARNINGS", "CUDA_VISIBLE_DEVICES",
            "OMP_NUM_THREADS", "MKL_NUM_THREADS", "LANG", "LC_ALL", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE",
            "TORCHINDUCTOR_COMPILE_THREADS", "NVIDIA_VISIBLE_DEVICES")
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

    # -- user ids -----------------------------------------------------------------------
    def _claim_uid(self) -> int:
        LOCK_DIR.mkdir(mode=0o700, exist_ok=True)
        start = os.getpid() % UID_COUNT
        for k in range(UID_COUNT):
            uid = UID_BASE + (start + k) % UID_COUNT
            f = open(LOCK_DIR / str(uid), "w")
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                f.close()
                continue
            self._lock = f
            return uid
        raise SandboxUnavailable("no free sandbox user id")

    def release(self) -> None:
        if self.uid is not None:
            kill_user(self.uid)
        if self._lock is not None:
            self._lock.close()
            self._lock = None
        self.uid = None

    # -- nbclient hooks -----------------------------------------------------------------
    def kernel_manager_kwargs(self, workdir: Path, limits) -> dict:
        self.uid = self._claim_uid()
        self.workdir = Path(workdir).resolve()
        self.limits = limits
        self.conn_dir = Path(tempfile.mkdtemp(prefix="autograder-kernel-"))
        os.chmod(self.conn_dir, 0o711)
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
                return sandbox.wrap(cmd)

            async def _async_launch_kernel(self, kernel_cmd, **kw):
                sandbox.env = kw.get("env") or {}
                kw["env"] = {"PATH": "/usr/bin:/bin"}
                os.chmod(self.connection_file, 0o644)
                return await super()._async_launch_kernel(sandbox.wrap_env(kernel_cmd), **kw)

        self.kernel_manager_class = SandboxKernelManager
        return {}

    def wrap(self, cmd: list[str]) -> list[str]:
        """bwrap [namespaces, mounts] setpriv [drop to uid] prlimit [limits] -- the kernel command."""
        lim = self.limits
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
        work = str(self.workdir)
        # parents of the writable folders, traversable by the sandbox user (bwrap would make them 0700)
        parents = []
        for target in (self.workdir, self.conn_dir):
            for d in reversed(list(Path(target).parents)):
                if str(d) not in ("/", "/tmp") and str(d) not in parents and not str(d).startswith(("/usr", "/etc")):
                    parents.append(str(d))
        mkw = []
        for d in parents:
            if d not in dirs:
                mkw += ["--perms", "0755", "--dir", d]
        outer = [
            "bwrap", "--die-with-parent", "--new-session",
            "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
            "--hostname", "sandbox",
            "--ro-bind", "/usr", "/usr",
            "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
            "--symlink", "usr/bin", "/bin", "--symlink", "usr/sbin", "/sbin",
            "--ro-bind", "/etc", "/etc",
            "--proc", "/proc", "--dev", "/dev", *gpu,
            # shared memory for DataLoader workers and multiprocessing, bounded like /tmp
            "--size", str(self.tmp_size_mb << 20), "--perms", "1777", "--tmpfs", "/dev/shm",
            "--size", str(self.tmp_size_mb << 20), "--perms", "1777", "--tmpfs", "/tmp",
            # after /tmp is mounted, so that a Python or course under /tmp stays visible
            *mk, *ro, *mkw,
            "--bind", work, work,
            "--bind", str(self.conn_dir), str(self.conn_dir),
            "--chdir", work,
            "--clearenv",
        ]
        inner = [
            "setpriv", f"--reuid={self.uid}", f"--regid={self.uid}", "--clear-groups",
            "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--",
            "prlimit", f"--nproc={lim.max_processes}", f"--data={lim.memory_mb << 20}",
            f"--fsize={lim.max_file_mb << 20}", f"--cpu={int(lim.notebook_timeout * 4)}", "--core=0", "--",
        ]
        return outer + ["@ENV@"] + inner + cmd

    def wrap_env(self, cmd: list[str]) -> list[str]:
        """Replace the ``@ENV@`` marker with the environment the kernel may see (nothing else leaks in)."""
        env = {k: v for k, v in self.env.items() if k in ENV_KEEP}
        env.update({"HOME": "/tmp", "USER": "grader", "LOGNAME": "grader", "PATH": "/usr/bin:/bin",
                    "MPLCONFIGDIR": "/tmp/matplotlib", "PYTHONDONTWRITEBYTECODE": "1",
                    "JUPYTER_PLATFORM_DIRS": "1", "PYTHONNOUSERSITE": "1"})
        sets = []
        for k, v in sorted(env.items()):
            sets += ["--setenv", k, v]
        i = cmd.index("@ENV@")
        return cmd[:i] + sets + cmd[i + 1:]

    def cleanup(self) -> None:
        self.release()
        shutil.rmtree(getattr(self, "conn_dir", ""), ignore_errors=True)


def kill_user(uid: int) -> None:
    """SIGKILL every process left running as ``uid`` (nothing should be; this is a backstop)."""
    import signal

    for p in Path("/proc").iterdir():
        if not p.name.isdigit():
            continue
        try:
            if p.stat().st_uid == uid:
                os.kill(int(p.name), signal.SIGKILL)
        except (OSError, ProcessLookupError):
            pass


def default_sandbox() -> Sandbox | None:
    return Sandbox()
