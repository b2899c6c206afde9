"""The bubblewrap command line of a sandbox, and the environment a sandboxed kernel sees.

New namespaces, a read-only system and Python, the ``autograder`` package the grader runs,
private bounded ``/tmp`` and ``/dev/shm``, the GPUs if any, and only the named folders
writable.  Nothing of the grader's environment reaches the kernel but what is listed here.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ENV_KEEP = ("AUTOGRADER_MODE", "MPLBACKEND", "PYTHONWARNINGS", "CUDA_VISIBLE_DEVICES",
            "OMP_NUM_THREADS", "MKL_NUM_THREADS", "LANG", "LC_ALL", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE",
            "TORCHINDUCTOR_COMPILE_THREADS", "NVIDIA_VISIBLE_DEVICES", "TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR")

from autograder import PACKAGE_DIR

FIXED_ENV = {"HOME": "/tmp", "USER": "grader", "LOGNAME": "grader", "PATH": "/usr/bin:/bin",
             "MPLCONFIGDIR": "/tmp/matplotlib", "PYTHONDONTWRITEBYTECODE": "1",
             "JUPYTER_PLATFORM_DIRS": "1", "PYTHONNOUSERSITE": "1"}



def package_path() -> str:
    """The folder that holds the ``autograder`` package this process runs: kernels import the same
    copy (it is the one bound into the sandbox), whatever editable install the environment points at."""
    return os.path.dirname(PACKAGE_DIR)



def kernel_env(source) -> dict[str, str]:
    """The environment a sandboxed kernel sees: the kept variables of ``source`` and fixed ones."""
    env = {k: v for k, v in source.items() if k in ENV_KEEP}
    env.update(FIXED_ENV)
    env["PYTHONPATH"] = package_path()
    return env



def setenv_args(env: dict[str, str]) -> list[str]:
    return [a for k, v in sorted(env.items()) for a in ("--setenv", k, v)]



def _folders_above(path, into: list[str]) -> None:
    """Add to ``into``, outermost first and once each, the folders above ``path`` that bubblewrap must make
    (made 0755 by the caller) to bind ``path``: all but ``/``, ``/tmp`` and what the bound ``/usr`` and ``/etc``
    hold."""
    for d in reversed(list(Path(path).parents)):
        if str(d) not in ("/", "/tmp") and str(d) not in into and not str(d).startswith(("/usr", "/etc")):
            into.append(str(d))


def bwrap_args(writable: list[Path], tmp_size_mb: int) -> list[str]:
    """bubblewrap's arguments: new namespaces, a read-only system and Python, private /tmp and
    /dev/shm, the GPUs if any, and ``writable`` folders bound read-write at their own paths."""
    ro = []
    seen: set[str] = set()
    dirs: list[str] = []

    def ro_bind(path: str) -> None:
        # at its real place, and at the place it is spelled where a link leads there (a venv reached through
        # a link: the kernel is started, and finds its site-packages, by the spelled path)
        real = os.path.realpath(path)
        if not os.path.exists(real):
            return
        for at in (real, os.path.abspath(path)):
            if at in seen or (at != real and at.startswith(("/usr/", "/etc/"))):
                continue
            seen.add(at)
            _folders_above(at, dirs)
            ro.extend(["--ro-bind", real, at])

    for p in (sys.base_prefix, sys.prefix, PACKAGE_DIR):
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
    parents: list[str] = []
    for target in writable:
        _folders_above(target, parents)
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

