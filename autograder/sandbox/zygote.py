"""A pre-started kernel factory that runs inside the sandbox.

Every fresh kernel pays for ``import torch`` (seconds) before a line of the learner's code
runs.  The zygote is one Python process per grading worker, started once inside a
bubblewrap sandbox (no network, read-only system, only the worker's own folder writable;
see :mod:`autograder.sandbox.launch`).  It imports torch and the kernel's machinery and then
waits.  For each notebook the grader asks it for a kernel; it forks, and the child

1. gets private mount, IPC, network and PID namespaces: a fresh ``/tmp`` and ``/dev/shm``
   (tmpfs of bounded size), a loopback of its own, and a ``/proc`` that shows only its own
   processes, so nothing one learner leaves behind reaches the next and no kernel can see,
   signal or connect to another;
2. forks the kernel, which is process 1 of that PID namespace: when it exits or is killed,
   the kernel of the machine kills every process left in the namespace, however it was
   started (double fork, ``setsid``, a fork storm), so nothing outlives its notebook;
3. the kernel becomes the notebook's own unprivileged user (no groups, no capabilities,
   ``no_new_privs``), with its resource limits, and starts an IPython kernel in
   the notebook's folder with exactly the environment the grader passes.

Steps 1 and 2 need nothing from the request, so the zygote takes them ahead: after each reply it
forks and isolates the next child, whose kernel process waits for its request before step 3
(:class:`_Isolated`).  A notebook's kernel start then skips the two forks and the mounts (about
40 ms), which happen while the previous notebook's cells run.

CUDA is never initialised in the zygote (forking after it would break the children):
``import torch`` does not initialise it, and nothing here touches ``torch.cuda``.

The protocol is one JSON request per line on stdin and one JSON reply per line on stdout.
Only the grader holds those pipes: each child closes them before it runs anything else.

One module of about 390 lines: it is run as a script, as root, inside its own sandbox, and imports nothing of
this package but itself (``tests/unit/test_docs.py`` reads it, never imports it), so it cannot be split.
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import select
import signal
import sys

CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
CLONE_NEWNET = 0x40000000
CLONE_NEWPID = 0x20000000
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 1, 2, 4, 32, 4096, 16384, 1 << 18
PR_SET_DUMPABLE, PR_SET_NO_NEW_PRIVS = 4, 38

# ipykernel.debugger: every kernel imports debugpy when it starts (about 0.16 s); importing it
# starts no thread and installs no trace hook, so it forks like any module
PRELOAD = ("numpy", "torch", "tqdm.auto", "sklearn.datasets", "ipykernel.kernelapp", "ipykernel.debugger",
           "matplotlib", "matplotlib.font_manager", "matplotlib.pyplot",
           # and what a kernel's start imports (IPython's shell, its history store, the debugger, tornado's loop)
           "ipykernel.ipkernel", "ipykernel.zmqshell", "IPython.core.completerlib", "IPython.core.debugger",
           "IPython.core.logger", "IPython.core.oinspect", "IPython.extensions.storemagic", "IPython.utils.wildcard",
           "sqlite3", "pdb", "tornado.platform.asyncio")
INLINE = "module://matplotlib_inline.backend_inline"  # what ipykernel picks when MPLBACKEND is unset

_libc = ctypes.CDLL(None, use_errno=True)


def _check(rc: int, what: str) -> None:
    if rc != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _loopback_up() -> None:
    """Bring up ``lo`` in this new network namespace (gloo and local servers use 127.0.0.1)."""
    import fcntl
    import socket
    import struct

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        flags = struct.unpack("16sH", fcntl.ioctl(s, SIOCGIFFLAGS, struct.pack("16sH", b"lo", 0)))[1]
        fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack("16sH", b"lo", flags | IFF_UP))


def _private_tmp(size_bytes: int) -> None:
    """Fresh tmpfs on /tmp and /dev/shm, in a mount namespace of this child's own (with new IPC,
    network and PID namespaces: the next fork is process 1 of the new PID namespace).

    What the sandbox binds below /tmp (the slot folder, or a Python installed under /tmp)
    is bound again into the new /tmp, read-only where it was."""
    _check(_libc.unshare(CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWNET | CLONE_NEWPID), "unshare")
    _loopback_up()
    _check(_libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None), "make / private")
    opts = f"size={size_bytes},mode=1777".encode()
    _check(_libc.mount(b"tmpfs", b"/dev/shm", b"tmpfs", MS_NOSUID | MS_NODEV, opts), "mount /dev/shm")
    keep: list[tuple[str, bool]] = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            point = fields[4].replace("\\040", " ")
            if point.startswith("/tmp/"):
                keep.append((point, "ro" in fields[5].split(",")))
    keep = [(m, ro) for m, ro in keep if not any(o != m and m.startswith(o + "/") for o, _ in keep)]
    old = os.open("/tmp", os.O_PATH | os.O_DIRECTORY)
    # the folders made below are the kernel's way to what is bound in them: 0755 whatever the grader's umask
    # (the formgrader's is 077, which would leave a Python or package under /tmp out of the kernel's reach)
    umask = os.umask(0o022)
    try:
        _check(_libc.mount(b"tmpfs", b"/tmp", b"tmpfs", MS_NOSUID | MS_NODEV, opts), "mount /tmp")
        for point, ro in keep:
            src = f"/proc/self/fd/{old}/{point[len('/tmp/'):]}"
            if os.path.isdir(src):
                os.makedirs(point, mode=0o755, exist_ok=True)
            else:
                os.makedirs(os.path.dirname(point), mode=0o755, exist_ok=True)
                open(point, "a").close()
            _check(_libc.mount(src.encode(), point.encode(), None, MS_BIND | MS_REC, None), f"bind {point}")
            if ro:
                _check(_libc.mount(None, point.encode(), None,
                                   MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, None), f"read-only {point}")
    finally:
        os.umask(umask)
        os.close(old)


def _become(uid: int, limits: dict) -> None:
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)  # drops every capability: no SECBIT_KEEP_CAPS here
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    # dumpable, as after an exec, so that /proc/self is the kernel's own: no other notebook can
    # use that to trace it, since none shares its user id or can see its PID namespace
    _check(_libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0), "dumpable")
    for name, value in limits.items():
        res = getattr(resource, f"RLIMIT_{name.upper()}")
        resource.setrlimit(res, (value, value))


def _mount_proc() -> None:
    """A /proc of this PID namespace: the kernel sees its own processes and no other."""
    _check(_libc.mount(b"proc", b"/proc", b"proc", MS_NOSUID | MS_NODEV | 8, None), "mount /proc")  # 8: noexec


def _child(req: dict, ready_w: int) -> None:
    """In the forked child (process 1 of its PID namespace): drop privileges, then run the kernel."""
    try:
        _mount_proc()
        _become(int(req["uid"]), req["limits"])
        os.chdir(req["cwd"])
        os.environ.clear()
        os.environ.update(req["env"])
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        os.closerange(3, ready_w)
        os.closerange(ready_w + 1, 65536)
        os.write(ready_w, b"ok")
        os.close(ready_w)
    except BaseException as exc:  # noqa: BLE001 - report and die; never run the kernel half-isolated
        try:
            os.write(ready_w, f"error: {type(exc).__name__}: {exc}".encode()[:500])
        finally:
            os._exit(70)
    # what a fresh `python -m ipykernel_launcher` would have
    sys.argv = ["ipykernel_launcher", *req["argv"]]
    sys.path.insert(0, req["cwd"])
    if os.environ.get("PYTHONWARNINGS"):
        import warnings

        for opt in os.environ["PYTHONWARNINGS"].split(","):
            try:
                warnings._setoption(opt)  # type: ignore[attr-defined]
            except warnings._OptionError:  # type: ignore[attr-defined]
                pass
    if "matplotlib" in sys.modules:  # imported before this kernel's environment was known
        sys.modules["matplotlib"].rcParams["backend"] = os.environ.get("MPLBACKEND") or INLINE
    threads = os.environ.get("OMP_NUM_THREADS")
    if threads and threads.isdigit():
        import torch

        torch.set_num_threads(int(threads))
    code = 0
    try:
        from ipykernel.kernelapp import IPKernelApp

        IPKernelApp.launch_instance(argv=req["argv"])
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 0
    except BaseException:  # noqa: BLE001
        code = 1
    os._exit(code)


def _quiet_fds(*keep: int) -> None:
    """Point 0, 1 and 2 at /dev/null and close every other descriptor but ``keep``: the zygote's pipes
    to the grader stay with the zygote alone."""
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    last = 2
    for fd in sorted(keep):
        os.closerange(last + 1, fd)
        last = fd
    os.closerange(last + 1, 65536)


def _isolate_and_fork(tmp_bytes: int, req_r: int, ready_w: int, pid_w: int) -> None:
    """In a fork of the zygote: new namespaces, then fork the kernel into them and wait for it.

    The kernel waits for its request (user id, folder, environment, command line) on ``req_r``
    before it does anything of the notebook's.  This process stays root in the zygote's namespaces,
    out of the learner's reach, and only reaps the kernel: when the kernel (process 1 of the new
    PID namespace) exits, everything it started is killed with it."""
    try:
        _quiet_fds(req_r, ready_w, pid_w)
        os.setsid()
        _private_tmp(tmp_bytes)
        kernel = os.fork()
    except BaseException as exc:  # noqa: BLE001
        try:
            os.write(ready_w, f"error: {type(exc).__name__}: {exc}".encode()[:500])
        finally:
            os._exit(70)
    if kernel == 0:
        os.close(pid_w)
        try:
            with os.fdopen(req_r, "rb") as f:
                data = f.read()
            if not data:
                os._exit(0)  # the zygote is gone, or dropped this spare: nothing ran here
            req = json.loads(data)
        except BaseException as exc:  # noqa: BLE001
            try:
                os.write(ready_w, f"error: {type(exc).__name__}: {exc}".encode()[:500])
            finally:
                os._exit(70)
        _child(req, ready_w)
        os._exit(0)
    os.write(pid_w, str(kernel).encode())
    os.closerange(3, 65536)
    try:
        os.waitpid(kernel, 0)
    finally:
        os._exit(0)


class _Isolated:
    """A child forked from the zygote and isolated (its namespaces, its own /tmp), whose kernel
    process waits for the request that says whose kernel it becomes.

    The zygote keeps one ready between requests (:func:`serve`), so that a notebook's kernel start
    does not wait for the two forks and the mounts (about 40 ms): they happen while the previous
    notebook's cells run.  Until its request comes the child holds nothing but a copy of the
    zygote, as a fork made at the request would."""

    def __init__(self, tmp_bytes: int) -> None:
        self.tmp_bytes = tmp_bytes
        req_r, self.req_w = os.pipe()
        self.ready_r, ready_w = os.pipe()
        self.pid_r, pid_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            _isolate_and_fork(tmp_bytes, req_r, ready_w, pid_w)
            os._exit(0)
        os.close(req_r)
        os.close(ready_w)
        os.close(pid_w)

    def hand(self, req: dict) -> dict:
        """Give the waiting kernel its request; its pid in the zygote's namespace, or why it failed."""
        try:
            with os.fdopen(self.req_w, "wb") as f:
                f.write(json.dumps(req).encode())
        except OSError:  # BrokenPipeError: the child died (its reason, if any, is on ready_r)
            pass
        with os.fdopen(self.pid_r, "rb") as f:
            kernel = f.read(32).decode(errors="replace")
        with os.fdopen(self.ready_r, "rb") as f:
            status = f.read(600).decode(errors="replace")
        if status != "ok" or not kernel.isdigit():
            return {"error": status or "the kernel process died while starting"}
        return {"pid": int(kernel)}

    def drop(self) -> None:
        """Let the waiting child go (it reads an empty request and exits)."""
        for fd in (self.req_w, self.pid_r, self.ready_r):
            os.close(fd)


_SPARE: _Isolated | None = None


def _spawn(req: dict) -> dict:
    global _SPARE
    spare, _SPARE = _SPARE, None
    tmp_bytes = int(req["tmp_bytes"])
    if spare is not None and spare.tmp_bytes == tmp_bytes:
        reply = spare.hand(req)
        if "pid" in reply:
            return reply
        # a spare that died waiting: isolate a fresh child, which fails the same way if isolation does
    elif spare is not None:
        spare.drop()
    return _Isolated(tmp_bytes).hand(req)


def _reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _warm() -> None:
    """First uses that cost every kernel time, paid once here instead.

    - The first tensor on the ``meta`` device loads torch's operator registrations for it
      (sympy and the decompositions: about 1.5 s on this machine's cores). Hidden tests use
      ``meta`` to check devices, so every graded kernel would pay it.
    - The first figure drawn loads fonts and the renderer (about 0.3 s). It is drawn off-screen
      through the object API, not pyplot, so no figure or backend is left behind.

    Neither draws a random number or changes a torch setting: a kernel forked from here starts
    as a fresh one would, only sooner."""
    import io

    try:
        import torch

        torch.empty(2, device="meta") + 1
    except Exception:  # noqa: BLE001 - only time is lost
        pass
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        fig = Figure()
        FigureCanvasAgg(fig)
        fig.add_subplot().plot([0, 1], [1, 0], label="warm")
        fig.axes[0].legend()
        fig.savefig(io.BytesIO(), format="png")
    except Exception:  # noqa: BLE001
        pass


def _no_debugger() -> None:
    """Grading kernels start without ipykernel's debugger: the grader never sends a debug request,
    and a kernel with the debugger lists every loaded module (thousands, with torch) and builds the
    debugger as it starts."""
    try:
        import ipykernel.debugger
    except ImportError:  # no debugger to turn off
        return
    ipykernel.debugger._is_debugpy_available = False


def serve() -> None:
    os.environ.setdefault("MPLBACKEND", INLINE)
    for name in PRELOAD:
        try:
            __import__(name)
        except Exception:  # noqa: BLE001 - a missing optional package only costs time later
            pass
    _warm()
    _no_debugger()
    out = sys.stdout
    out.write(json.dumps({"ready": True, "pid": os.getpid()}) + "\n")
    out.flush()
    global _SPARE
    stdin = sys.stdin.buffer
    buf = b""
    while True:
        r, _, _ = select.select([stdin], [], [], 1.0)
        _reap()
        if not r:
            continue
        chunk = os.read(stdin.fileno(), 1 << 16)
        if not chunk:
            return  # the grader is gone
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            try:
                req = json.loads(line)
                reply = _spawn(req)
            except Exception as exc:  # noqa: BLE001
                req, reply = None, {"error": f"{type(exc).__name__}: {exc}"}
            out.write(json.dumps(reply) + "\n")
            out.flush()
            if req is not None and "pid" in reply and not buf:
                try:  # the next notebook's child, isolated while this one's kernel runs
                    _SPARE = _Isolated(int(req["tmp_bytes"]))
                except OSError:  # out of processes or memory: the next request forks as it comes
                    pass


if __name__ == "__main__":
    serve()
