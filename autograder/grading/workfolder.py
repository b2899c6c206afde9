"""A run's working folder, made one way for every run that executes a notebook: the graded runs
and the reference's, both by :mod:`autograder.grading.steps.execute`.

:func:`prepared` makes it: a fresh folder where the sandbox's kernel can see it
(:func:`autograder.grading.execute.work_folder`), the submission's own support files (regular files only,
no links, nothing huge: :func:`copy_support_files`), the files the release lists, and in the sandbox a
private copy of the reference's compile cache (:func:`seed_compile_cache`) with torch's caches pointed
into the folder (:func:`compile_cache_env`).  It yields the folder and the kernel's environment.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path

from autograder.grading.coursedata import NotebookData
from autograder.grading.execute import work_folder
from autograder.values import support, timing

COMPILE_CACHE = ".compile-cache"  # torch.compile's on-disk caches, inside a run's working folder


def compile_cache_env(work: Path) -> dict[str, str]:
    """Point Inductor's and Triton's caches into the run's own folder (the sandbox's /tmp is private)."""
    base = Path(work) / COMPILE_CACHE
    return {"TORCHINDUCTOR_CACHE_DIR": str(base / "inductor"), "TRITON_CACHE_DIR": str(base / "triton")}


def compile_cache_store(cache_dir: Path, data: NotebookData) -> Path:
    """Where the reference run's compiled kernels are kept, by solution content."""
    return Path(cache_dir) / "compile" / data.assignment.name / f"{data.name}-{data.solution_sha[:16]}"


def copy_regular_files(src: Path, dest: Path) -> None:
    """Copy a folder's regular files and folders; links (and anything else) are left out, never followed."""
    def skip(folder, names):
        return [n for n in names if os.path.islink(os.path.join(folder, n))
                or not (os.path.isfile(os.path.join(folder, n)) or os.path.isdir(os.path.join(folder, n)))]

    shutil.copytree(src, dest, ignore=skip)


def seed_compile_cache(work: Path, store: Path | None) -> None:
    """Give a run a private copy of the reference's compile cache, so that it does not recompile what
    the notebook's own code compiles.  Each run gets its own copy: nothing it writes reaches another."""
    dest = Path(work) / COMPILE_CACHE
    if dest.is_symlink() or dest.is_file():
        dest.unlink()
    shutil.rmtree(dest, ignore_errors=True)
    if store is not None and store.is_dir():
        copy_regular_files(store, dest)


def keep_compile_cache(work: Path, store: Path) -> None:
    """Keep the compile cache a run made in ``work`` (the reference's) as ``store``, replacing what was there
    at once; nothing when the run made none.  A copy or swap that fails leaves the store as it was and no
    partial copy beside it; the earlier store is removed only once the new one is in place."""
    made = Path(work) / COMPILE_CACHE
    if not (made.is_dir() and any(made.rglob("*"))):
        return
    staging = store.with_name(f"{store.name}.{os.getpid()}.tmp")
    earlier = store.with_name(f"{store.name}.{os.getpid()}.old")
    for ours in (staging, earlier):  # this process's own names, from a run that was killed
        shutil.rmtree(ours, ignore_errors=True)
    try:
        copy_regular_files(made, staging)
        if store.is_dir():
            os.replace(store, earlier)
        try:
            os.replace(staging, store)
        except OSError:
            if earlier.is_dir():
                os.replace(earlier, store)  # the store as it was (where even that fails, ``earlier`` stays)
            raise
        shutil.rmtree(earlier, ignore_errors=True)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


MAX_SUPPORT_FILE = 50 * 1024 * 1024


def copy_support_files(src: Path, dest: Path) -> None:
    """Copy the regular non-notebook files of ``src`` (no links, nothing huge) into ``dest``."""
    if not src.is_dir():
        return
    for root, dirs, files in os.walk(src, followlinks=False):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in ("__pycache__", "feedback")]
        for f in files:
            p = Path(root) / f
            if p.suffix == ".ipynb" or p.is_symlink() or not p.is_file() or p.stat().st_size > MAX_SUPPORT_FILE:
                continue
            target = dest / p.relative_to(src)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(p, target)


@contextlib.contextmanager
def prepared(data: NotebookData, sandbox, prefix: str, cache: Path | None = None, submitted: Path | None = None):
    """The working folder of one run of ``data``'s notebook, and the environment its kernel runs with
    (this module's docstring); ``submitted``: the submission's folder, whose support files come too."""
    with work_folder(sandbox, prefix) as work:
        with timing.phase("grader: copy support files"):
            if submitted is not None:
                copy_support_files(submitted, work)
            support.copy_listed(data.support_dir, data.support_files, work)  # what the release ships
        env = {"AUTOGRADER_MODE": "record"}
        if sandbox is not None:  # unsandboxed, torch's own cache under /tmp is shared and warm already
            seed_compile_cache(work, cache)
            env.update(compile_cache_env(work))
        yield work, env
