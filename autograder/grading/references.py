"""The reference solution's observations, computed once per notebook and seed, and the compile
caches its run leaves for the graded runs of the same notebook.

The reference runs as the submissions will: in the sandbox, on its grade path
(:mod:`autograder.gradepath`).  If it cannot, nothing may be graded
(:class:`autograder.values.records.Reference` says why).
"""

from __future__ import annotations

import copy
import json
import os
import shutil
from pathlib import Path

from autograder import gradepath
from autograder.grading.coursedata import NotebookData
from autograder.grading.execute import Limits, execute, work_folder
from autograder.grading.steps.judge import outcomes
from autograder.grading.steps.arm import arm_hidden_tests
from autograder.values import support
from autograder.values.digest import sha
from autograder.values.files import write_atomic
from autograder.values.records import Reference

COMPILE_CACHE = ".compile-cache"  # torch.compile's on-disk caches, inside a run's working folder


def compile_cache_env(work: Path) -> dict[str, str]:
    """Point Inductor's and Triton's caches into the run's own folder (the sandbox's /tmp is private)."""
    base = Path(work) / COMPILE_CACHE
    return {"TORCHINDUCTOR_CACHE_DIR": str(base / "inductor"), "TRITON_CACHE_DIR": str(base / "triton")}


def compile_cache_store(cache_dir: Path, data: NotebookData) -> Path:
    """Where the reference run's compiled kernels are kept, by solution content."""
    return Path(cache_dir) / "compile" / data.assignment.name / f"{data.name}-{data.solution_sha[:16]}"


def _copy_regular_files(src: Path, dest: Path) -> None:
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
        _copy_regular_files(store, dest)


# how the reference runs; a cached reference made under other rules is not reused
RULES = "6: the grade path; test cells leave the generators as they found them"


def _recorded(data: NotebookData, seed: int, cache_dir: Path | None) -> Path | None:
    """Where the reference's observations for this solution and seed are kept once recorded."""
    if cache_dir is None:
        return None
    key = sha(f"{data.solution_sha}/{seed}/{RULES}")[:24]
    return cache_dir / f"{data.name}-{key}.json"


def reference_recorded(data: NotebookData, seed: int, cache_dir: Path | None) -> bool:
    """Whether :func:`run_reference` would read the observations it recorded earlier instead of running."""
    cache = _recorded(data, seed, cache_dir)
    return cache is not None and cache.is_file()


def run_reference(data: NotebookData, seed: int, limits: Limits | None = None, sandbox=None,
                  cache_dir: Path | None = None) -> Reference:
    """The reference solution's observations on ``seed``, per exercise (cached by content and seed), or
    why it could not produce them: its grade path must run cleanly where the submissions will run.

    Sandboxed and with ``cache_dir``, the compile caches the solution leaves behind are kept too
    (:func:`compile_cache_store`), for the graded runs.
    """
    cache = _recorded(data, seed, cache_dir)
    if cache and cache.is_file():
        return Reference(observations=json.loads(cache.read_text())["observations"])
    store = compile_cache_store(cache_dir, data) if cache_dir and sandbox is not None else None
    armed = arm_hidden_tests(copy.deepcopy(data.solution), seed, data.markers, variant=data.parameters)
    with work_folder(sandbox, "reference-") as tmp:
        support.copy_listed(data.support_dir, data.support_files, tmp)
        seed_compile_cache(tmp, store)
        # unsandboxed, torch's own cache under /tmp is shared and warm already
        cc = compile_cache_env(tmp) if sandbox is not None else {}
        res = execute(gradepath.mark(armed, gradepath.grade_path(armed)), tmp,
                      env={"AUTOGRADER_MODE": "record", **cc}, limits=limits, sandbox=sandbox)
        made = tmp / COMPILE_CACHE
        if store is not None and not res.error and made.is_dir() and any(made.rglob("*")):
            staging = store.with_name(f"{store.name}.{os.getpid()}.tmp")
            shutil.rmtree(staging, ignore_errors=True)
            _copy_regular_files(made, staging)
            shutil.rmtree(store, ignore_errors=True)
            os.replace(staging, store)
    observations, failure = _observations(data, res, f"reference solution {data.where}")
    if failure:
        return Reference(failure=failure)
    if cache:
        write_atomic(cache, json.dumps({"observations": observations}))
    return Reference(observations=observations)


def _observations(data: NotebookData, res, where: str) -> tuple[dict | None, str | None]:
    """Each exercise's observations from a clean run of the solution, or why there are none."""
    if res.error:
        return None, f"{where} did not run to the end: {res.error}"
    for i, cell in enumerate(res.nb.cells):
        failed = next((o for o in cell.get("outputs", []) if o.get("output_type") == "error"), None)
        if failed is not None:
            return None, f"{where}, cell {i}, raised {failed.get('ename')}: {str(failed.get('evalue'))[:300]}"
    got = outcomes(res.nb, data.exercises)
    observations = {}
    for ex in data.exercises:
        entry = got[ex.id]
        if entry.error or not entry.payload or entry.payload.get("error"):
            why = entry.error or (entry.payload or {}).get("error") or "no observations"
            return None, f"{where} failed its own test {ex.id}: {why}"
        observations[ex.id] = entry.payload
    return observations, None
