"""The reference solution's observations, computed once per notebook and seed, and the compile
caches its run leaves for the graded runs of the same notebook (kept where
:func:`autograder.grading.workfolder.compile_cache_store` says).

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
from autograder.grading.execute import Limits, execute
from autograder.grading.steps.judge import outcomes
from autograder.grading.steps.arm import arm_hidden_tests
from autograder.grading.workfolder import COMPILE_CACHE, compile_cache_store, copy_regular_files, prepared
from autograder.values.digest import sha
from autograder.values.files import write_atomic
from autograder.values.records import Reference

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
    with prepared(data, sandbox, "reference-", store) as (tmp, env):
        res = execute(gradepath.mark(armed, gradepath.grade_path(armed)), tmp, env=env, limits=limits,
                      sandbox=sandbox)
        made = tmp / COMPILE_CACHE
        if store is not None and not res.error and made.is_dir() and any(made.rglob("*")):
            staging = store.with_name(f"{store.name}.{os.getpid()}.tmp")
            shutil.rmtree(staging, ignore_errors=True)
            copy_regular_files(made, staging)
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
