"""The reference solution's observations, computed once per notebook and seed, and the compile
caches its run leaves for the graded runs of the same notebook (kept where
:func:`autograder.grading.workfolder.compile_cache_store` says).

The reference runs as the submissions will, through their steps: armed, in the sandbox, on its grade path
(:mod:`autograder.gradepath`).  If it cannot, nothing may be graded
(:class:`autograder.values.records.Reference` says why).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

from autograder.grading.coursedata import NotebookData
from autograder.grading.execute import Limits
from autograder.grading.steps import GradingRun, reference_steps, run_steps
from autograder.grading.workfolder import compile_cache_store
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
    why it could not produce them: its grade path must run cleanly where the submissions will run.  It runs
    through the submissions' own steps (:func:`autograder.grading.steps.reference_steps`).

    Sandboxed and with ``cache_dir``, the compile caches the solution leaves behind are kept too
    (:func:`compile_cache_store`), for the graded runs.
    """
    cache = _recorded(data, seed, cache_dir)
    if cache and cache.is_file():
        return Reference(observations=json.loads(cache.read_text())["observations"])
    store = compile_cache_store(cache_dir, data) if cache_dir and sandbox is not None else None
    run = GradingRun(data, None, "reference", seed, None, limits or Limits(), sandbox, compile_cache=store,
                     hidden=True, keep_compile_cache=store)
    run_steps(run, reference_steps(), copy.deepcopy(data.solution))
    if cache and run.reference.ok:
        write_atomic(cache, json.dumps({"observations": run.reference.observations}))
    return run.reference
