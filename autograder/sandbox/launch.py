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

By default kernels come from a *zygote* (:mod:`autograder.sandbox.zygote`): one sandbox per grading
process, started once, that has imported torch and forks a kernel per notebook.  Each fork
gets its own ``/tmp``, ``/dev/shm`` and IPC namespace, its own user id and limits, and sees
only the folder of the notebook it runs (every run's folder is made inside the zygote's
slot folder, which holds one run at a time).  ``AUTOGRADER_ZYGOTE=0`` starts every kernel in
a sandbox of its own instead.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
from pathlib import Path

from jupyter_client.manager import AsyncKernelManager

from autograder.sandbox.bwrap import bwrap_args, kernel_env, setenv_args
from autograder.sandbox.uids import RETIRED, SandboxUnavailable, claim_uid, kill_user
from autograder.sandbox.zygote_client import TMP_SIZE_MB, ZygoteProcess, inside, slot, zygote, zygote_enabled
from autograder.values import timing


def available() -> bool:
    return shutil.which("bwrap") is not None and shutil.which("setpriv") is not None and os.geteuid() == 0



class Sandbox:
    """One sandboxed kernel at a time; build a new one per notebook run."""

    tmp_size_mb = TMP_SIZE_MB

    def __init__(self) -> None:
        if not available():
            raise SandboxUnavailable("the sandbox needs bubblewrap (bwrap) and setpriv, run as root; "
                                     "install them with 'apt-get install bubblewrap util-linux' or run "
                                     "'make setup', or grade with --no-sandbox for trusted input only")
        self.uid = None
        self._lock = None
        self.zygote = zygote_enabled()
        self.raw_cmd: list[str] = []

    def _tmp_parent(self) -> str | None:
        """Where a run's folders must be made (inside the zygote's slot), or None for anywhere."""
        return str(slot()) if self.zygote else None

    @contextlib.contextmanager
    def work_folder(self, prefix: str = "run-"):
        """A fresh working folder for one run, where this sandbox's kernel can see it; removed after."""
        with tempfile.TemporaryDirectory(prefix=prefix, dir=self._tmp_parent()) as tmp:
            work = Path(tmp) / "work"
            work.mkdir()
            yield work

    # -- user ids -----------------------------------------------------------------------
    def _claim_uid(self) -> int:
        uid, self._lock = claim_uid()
        return uid

    def release(self) -> None:
        if self.uid is not None:
            if not kill_user(self.uid):  # keep the id locked: it must not serve another notebook
                print(f"autograder: processes of sandbox user {self.uid} survived; the id is retired "
                      "for this run", file=sys.stderr, flush=True)
                RETIRED.append(self._lock)
                self._lock = None
        if self._lock is not None:
            self._lock.close()
            self._lock = None
        self.uid = None

    # -- nbclient hooks -----------------------------------------------------------------
    def prepare(self, workdir: Path, limits) -> type:
        """Claim a user id for one run in ``workdir`` and return the kernel manager class that
        starts its kernel in this sandbox."""
        with timing.phase("sandbox: set up (uid, chown, folders)"):
            return self._prepare(workdir, limits)

    def _prepare(self, workdir: Path, limits) -> type:
        self.uid = self._claim_uid()
        self.workdir = Path(workdir).resolve()
        self.limits = limits
        own = slot().resolve()
        self.zygote = self.zygote and inside(self.workdir, own)
        if self.zygote:  # the folders between the slot and the run's folder: traversable, not listable
            for d in self.workdir.parents:
                if d == own or not inside(d, own):
                    break
                os.chmod(d, 0o711)
        # the connection folder and file (with the HMAC key) are the kernel's user's alone
        self.conn_dir = Path(tempfile.mkdtemp(prefix="autograder-kernel-", dir=self._tmp_parent()))
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

        return SandboxKernelManager

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
        return zygote().spawn(req)

    def wrap_env(self, cmd: list[str]) -> list[str]:
        """Replace the ``@ENV@`` marker with the environment the kernel may see (nothing else leaks in)."""
        i = cmd.index("@ENV@")
        return cmd[:i] + setenv_args(kernel_env(self.env)) + cmd[i + 1:]

    def cleanup(self) -> None:
        with timing.phase("sandbox: clean up (kill uid, remove folders)"):
            self.release()
            shutil.rmtree(getattr(self, "conn_dir", ""), ignore_errors=True)

