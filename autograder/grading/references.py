"""The reference solution's observations, computed once per notebook and seed, and the compile
caches its run leaves for the graded runs of the same notebook.

The reference runs where the submissions will (the sandbox): if it cannot, nothing may be
graded (:class:`autograder.values.records.Reference` says why).
"""

from __future__ import annotations

import copy
import json
import os
import shutil
from pathlib import Path

from autograder import shortrun
from autograder.grading.coursedata import NotebookData
from autograder.grading.execute import Limits, execute, work_folder
from autograder.grading.scoring import outcomes
from autograder.grading.submission import arm_hidden_tests
from autograder.values import support
from autograder.values.digest import sha
from autograder.values.files import write_atomic
from autograder.values.records import Reference, ShortPlan

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


# how runs go and what the short run may skip; a cached reference made under other rules is not reused
RULES = ("5: test cells leave the generators as they found them; quiet imports; a skipped cell runs no learner code; "
         "a short run skips a tenth of the cell time")


def _recorded(data: NotebookData, seed: int, cache_dir: Path | None, short: bool) -> Path | None:
    """Where the reference's observations for this solution, seed and run are kept once recorded."""
    if cache_dir is None:
        return None
    key = sha(f"{data.solution_sha}/{seed}/{'short' if short else 'full'}/{RULES}")[:24]
    return cache_dir / f"{data.name}-{key}.json"


def reference_recorded(data: NotebookData, seed: int, cache_dir: Path | None, short: bool = True) -> bool:
    """Whether :func:`run_reference` would read the observations it recorded earlier instead of running."""
    cache = _recorded(data, seed, cache_dir, short)
    return cache is not None and cache.is_file()


def run_reference(data: NotebookData, seed: int, limits: Limits | None = None, sandbox=None,
                  cache_dir: Path | None = None, short: bool = True) -> Reference:
    """The reference solution's observations on ``seed``, per exercise (cached by content and seed), or
    why it could not produce them: it must run every cell cleanly where the submissions will run.

    With ``short``, the solution then runs again with the cells the short run would skip, and
    :attr:`Reference.short` says whether that changed anything a graded cell sees
    (:mod:`autograder.shortrun`).  Sandboxed and with ``cache_dir``, the compile caches the
    solution leaves behind are kept too (:func:`compile_cache_store`), for the graded runs.
    """
    cache = _recorded(data, seed, cache_dir, short)
    if cache and cache.is_file():
        found = json.loads(cache.read_text())
        return Reference(observations=found["observations"], short=ShortPlan.from_dict(found.get("short")))
    store = compile_cache_store(cache_dir, data) if cache_dir and sandbox is not None else None
    armed = arm_hidden_tests(copy.deepcopy(data.solution), seed, data.markers, variant=data.parameters)
    expressions = shortrun.reference_fingerprints(armed, data.release) if short else {}

    def run(nb, fingerprints, keep_cache: bool):
        with work_folder(sandbox, "reference-") as tmp:
            support.copy_listed(data.support_dir, data.support_files, tmp)
            seed_compile_cache(tmp, store)
            # unsandboxed, torch's own cache under /tmp is shared and warm already
            cc = compile_cache_env(tmp) if sandbox is not None else {}
            res = execute(nb, tmp, env={"AUTOGRADER_MODE": "record", **cc}, limits=limits, sandbox=sandbox,
                          fingerprints=fingerprints)
            made = tmp / COMPILE_CACHE
            if keep_cache and store is not None and not res.error and made.is_dir() and any(made.rglob("*")):
                staging = store.with_name(f"{store.name}.{os.getpid()}.tmp")
                shutil.rmtree(staging, ignore_errors=True)
                _copy_regular_files(made, staging)
                shutil.rmtree(store, ignore_errors=True)
                os.replace(staging, store)
        return res

    res = run(armed, expressions, keep_cache=True)
    where = f"reference solution {data.where}"
    observations, failure = _observations(data, res, where)
    if failure:
        return Reference(failure=failure)
    plan = prove_short(data, armed, res, expressions, lambda nb, fingerprints: run(nb, fingerprints, keep_cache=False),
                       min_share=SHORT_RUN_MIN_SHARE) if short else None
    if cache:
        write_atomic(cache, json.dumps({"observations": observations, "short": plan.to_dict() if plan else None}))
    return Reference(observations=observations, short=plan)


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


NOTHING_TO_SKIP = "every cell is needed by a graded cell or may run the learner's code"
# what a short run must skip, as a share of the reference's cell time, for grading to plan one: below it,
# what skipping saves a submission is within the run-to-run spread, while the proof (a second run of the
# solution) and every full rerun after a failure cost whole runs
SHORT_RUN_MIN_SHARE = 0.1


def prove_short(data: NotebookData, armed, full, expressions: dict[int, str], run,
                min_share: float = 0.0) -> ShortPlan:
    """Run the solution short and compare it with its full run (see :mod:`autograder.shortrun`).

    ``full`` is the full run (an :class:`~autograder.grading.execute.ExecResult` whose fingerprints were
    ``expressions``); ``run(nb, fingerprints)`` runs a notebook the same way and returns its result.
    Where the cells the short run would skip took less than ``min_share`` of the full run's cell time,
    nothing is run and the plan says the notebook is graded in full."""
    code_cells = sum(c.cell_type == "code" for c in armed.cells)
    extra: dict[int, str] = {}
    while True:
        skip, _ = shortrun.select(armed, data.release, extra)
        wrote = shortrun.writers(armed, skip, full.fingerprints)
        if not wrote:
            break
        extra.update(wrote)
    if not skip:
        return ShortPlan(code_cells=code_cells, failure=NOTHING_TO_SKIP)
    seconds = (round(sum(full.cell_seconds.values()), 2), round(sum(full.cell_seconds.get(i, 0.0) for i in skip), 2))
    if seconds[1] < min_share * seconds[0]:
        return ShortPlan(code_cells=code_cells, seconds=seconds,
                         failure=f"it would skip less than {min_share:.0%} of the cell time, not worth its proof")
    plan = shortrun.plan_from(armed, data.release, skip, full.fingerprints)
    short = run(shortrun.mark(armed, skip, plan, data.release), shortrun.short_fingerprints(armed, expressions))
    where = f"the short run of {data.assignment.name}/{data.name}"
    if short.abandoned:
        return ShortPlan(code_cells=code_cells, failure=f"{where} was abandoned: {short.abandoned}")
    observations, failure = _observations(data, short, where)
    if failure:
        return ShortPlan(code_cells=code_cells, failure=failure)
    full_obs, _ = _observations(data, full, where)
    differs = [e for e in observations if observations[e] != full_obs.get(e)]
    if differs:
        return ShortPlan(code_cells=code_cells, failure=f"{where} observed something else in {', '.join(differs)}")
    mismatch = shortrun.compare(armed, full.fingerprints, short.fingerprints, skip)
    if mismatch:
        return ShortPlan(code_cells=code_cells, failure=mismatch)
    plan.seconds = seconds
    return plan
