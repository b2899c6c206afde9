"""The short run: grade a submission by running only the cells its grade depends on.

Most of a notebook's time goes to cells that teach (demos, plots, training runs) and that no
graded cell reads.  The short run skips them, under three guards:

1. **A static slice** (:mod:`autograder.shortrun.dependencies`) proposes which cells the graded cells, the
   learner's own cells and everything they read depend on.  A cell that may run the learner's code
   is never skipped: the proof below runs the reference's answers, so it says nothing of what the
   learner's code does when a demo calls it (:func:`autograder.shortrun.dependencies.runs_learner_code`).
2. **A proof on the reference.**  When the reference solution runs (once per notebook and seed),
   it runs twice: in full, then short.  Before each graded cell both kernels report the
   fingerprints of what that cell may read, the random-number generators, torch's settings and
   the working folder's files (:mod:`autograder.probe.statedigest`); the two runs must also give the
   same observations.  Any difference, and the notebook is graded in full: the
   :class:`~autograder.values.records.ShortPlan` says which graded cell saw it and which skipped cells
   came before.
3. **A full run whenever it could matter.**  A submission skips only cells the proof covered
   and its own slice does not need.  If an exercise fails or errors in the short run (other than one
   left as released), the failure stands only where the slice accounts for everything the learner's
   code reads: no learner cell reads what it does not name (:func:`failures_need_full_run`).
   Otherwise, and whenever the short run stopped early, the notebook is graded again in full and that
   run counts.

Skipped cells that draw random numbers would leave the generators elsewhere than a full run
does (test cells never move them: every run puts them back after each, see
:meth:`autograder.grading.execute.KernelSession.run_cell`).  The reference's full run records the
generators' states before every cell, so in place of a skipped stretch the short run moves them to
where the full run had them after it, but only if they start where the full run had them before it
(else the run is abandoned and graded in full).

May import: :mod:`autograder.values` and the kernel side (:mod:`autograder.probe`, whose fingerprints it
compares).
"""

from __future__ import annotations

import json

import nbformat

from autograder.probe import statedigest
from autograder.shortrun.cellfacts import analyze, reads_beyond_names
from autograder.shortrun.dependencies import Slice, needed
from autograder.values import course, wire
from autograder.values.digest import sha
from autograder.values.records import ShortPlan

MAY_IMPORT: tuple[str, ...] = ("values", "probe")
SKIPPED_NOTE = ("[not run in grading: no graded cell depends on this cell, so the grader skipped it "
                "(short run); `autograder grade --full` runs every cell]\n")
GENERATORS = ("torch", "cuda", "numpy", "random")
# every process-wide generator starts from the OS's entropy (torch's too, in this torch): until a cell
# seeds one, its stream differs from run to run anyway, and skipping a draw from it changes nothing


def _seeded_by(nb, upto: int) -> set[str]:
    """The generators some code cell before ``upto`` seeds (so their streams are reproducible from there).

    Not test cells: the grader puts the generators back after each
    (:meth:`autograder.grading.execute.KernelSession.run_cell`), so a seed set in one does not outlast it."""
    out: set[str] = set()
    for c in nb.cells[:upto]:
        if c.cell_type == "code" and not course.is_tests(c):
            out |= analyze(c.source).seeds
    return out


def _sources(nb) -> list[str | None]:
    return [c.source if c.cell_type == "code" else None for c in nb.cells]


def _release_sources(release) -> set[str]:
    return {c.source for c in release.cells if c.cell_type == "code" and not course.grade_id(c)}


def roots(nb, release) -> dict[int, str]:
    """The cells every short run keeps: graded cells, and the learner's own (any plain code cell
    that is not, word for word, one of the release's)."""
    named = keys(nb, release)
    return {i: f"graded cell {course.grade_id(c)}" if course.grade_id(c) else "the learner's own cell (or an edited one)"
            for i, c in enumerate(nb.cells) if c.cell_type == "code" and (course.grade_id(c) or i not in named)}


def keys(nb, release) -> dict[int, str]:
    """A name for each code cell that is the release's, the same in the solution and in any
    submission: the grade id, or the source's hash and its occurrence."""
    ours = _release_sources(release)
    seen: dict[str, int] = {}
    out = {}
    for i, c in enumerate(nb.cells):
        if c.cell_type != "code":
            continue
        if course.grade_id(c):
            out[i] = f"id:{course.grade_id(c)}"
        elif c.source in ours:
            h = sha(c.source)[:16]
            seen[h] = seen.get(h, 0) + 1
            out[i] = f"src:{h}#{seen[h]}"
    return out


def learner_cells(nb, release) -> set[int]:
    """The code cells whose code is the learner's: answer cells, and cells that are not, word for word,
    one of the release's."""
    named = keys(nb, release)
    return {i for i, c in enumerate(nb.cells)
            if c.cell_type == "code" and (course.is_solution(c) or (i not in named and not course.grade_id(c)))}


def failures_need_full_run(nb, release) -> str:
    """Why a failure in ``nb``'s short run must be checked by a full run ("" when it stands as it is).

    The slice keeps every cell that binds or changes what a learner cell reads (the globals of the
    functions it defines included), and skips no cell that may run the learner's code; so where every
    learner cell reads only the names it spells, the learner's code sees in the short run what it would
    see in the full one, and a failure in it is the full run's.  A learner cell that may read what it
    does not name (:func:`~autograder.shortrun.cellfacts.reads_beyond_names`) could see a skipped cell's
    work, and its failure is run again in full."""
    for i in sorted(learner_cells(nb, release)):
        why = reads_beyond_names(nb.cells[i].source)
        if why:
            return f"code cell {sum(c.cell_type == 'code' for c in nb.cells[:i]) + 1} is the learner's and {why}"
    return ""


def select(nb, release, extra: dict[int, str] | None = None) -> tuple[set[int], Slice]:
    """The code cells a short run of ``nb`` may skip, by its own sources: needed by no root (graded
    cells, the learner's own cells, ``extra``) and running no code a learner cell wrote."""
    sl = needed(_sources(nb), {**roots(nb, release), **(extra or {})}, learner_cells(nb, release))
    return {i for i, c in enumerate(nb.cells) if c.cell_type == "code" and i not in sl.keep}, sl


def skips(nb, release, plan: ShortPlan | None) -> set[int]:
    """The cells a submission's short run skips: proven skippable on the reference and not needed
    by this submission's own cells."""
    if plan is None or not plan.ok:
        return set()
    ours = [c.source for c in release.cells if c.cell_type == "code" and not course.grade_id(c)]
    theirs = [c.source for c in nb.cells if c.cell_type == "code" and not course.grade_id(c)]
    if any(theirs.count(src) > ours.count(src) for src in set(theirs) & set(ours)):
        return set()  # a copied instructor cell: cells are no longer named as in the reference
    proven = set(plan.skip_sources)
    own, _ = select(nb, release)
    return {i for i in own if not course.grade_id(nb.cells[i]) and nb.cells[i].source in proven}


def short_run(nb, release, plan: ShortPlan | None) -> tuple[nbformat.NotebookNode | None, int]:
    """The submission's short run, marked, and how many cells it skips; None when nothing is skipped
    (no proof, nothing skippable, or a skipped stretch whose generator states were not recorded)."""
    skip = skips(nb, release, plan)
    if not skip:
        return None, 0
    try:
        return mark(nb, skip, plan, release), len(skip)
    except ValueError:
        return None, 0


def mark(nb, skip: set[int], plan: ShortPlan, release) -> nbformat.NotebookNode:
    """A copy of ``nb`` whose cells in ``skip`` the executor will not run (they get a note); the last
    cell of each skipped stretch moves the generators to where the reference's full run had them."""
    import copy

    out = copy.deepcopy(nb)
    names = keys(nb, release)
    code = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    for i in skip:
        out.cells[i].setdefault("metadata", {}).setdefault("autograder", {})["skipped"] = SKIPPED_NOTE
    k = 0
    while k < len(code):
        if code[k] not in skip:
            k += 1
            continue
        first = code[k]
        while k < len(code) and code[k] in skip:
            k += 1
        last = code[k - 1]
        nxt = next((j for j in code[k:] if j in names), None)
        before = plan.rng.get(names.get(first, ""), {}).get("rng")
        after = plan.rng.get(names[nxt] if nxt is not None else "end", {})
        if before is None or not after:
            raise ValueError(f"no generator states recorded around cell {first}")
        seeded = _seeded_by(nb, last + 1)
        moved = [g for g in GENERATORS if g in seeded and after["rng"].get(g) != before.get(g)]
        if moved:
            expect = {g: before.get(g) for g in moved}
            raw = {g: after["raw"][g] for g in moved if g in after.get("raw", {})}
            out.cells[last].metadata["autograder"]["then"] = (
                wire.call("autograder.probe.statedigest.restore", expect, raw))
    return out


# ------------------------------------------------------------------ the proof on the reference

SNAPSHOT = wire.call("autograder.probe.statedigest.snapshot_json")


def reference_fingerprints(nb, release) -> dict[int, str]:
    """What the full reference run reports: everything a graded cell may read before it, the
    generators before every other cell; at the end, everything any graded cell reads."""
    sl = needed(_sources(nb), roots(nb, release))
    out = {}
    for i, c in enumerate(nb.cells):
        if c.cell_type == "code":
            out[i] = statedigest.expression(sl.inputs.get(i, ())) if course.grade_id(c) else SNAPSHOT
    out[len(nb.cells)] = statedigest.expression(set().union(*sl.inputs.values()) if sl.inputs else set())
    return out


def short_fingerprints(nb, expressions: dict[int, str]) -> dict[int, str]:
    """The short run reports the same fingerprints as the full run before each graded cell and at the end."""
    return {i: e for i, e in expressions.items()
            if i == len(nb.cells) or (nb.cells[i].cell_type == "code" and course.grade_id(nb.cells[i]))}


def _parse(report: str | None) -> dict | None:
    try:
        d = json.loads(report or "")
    except ValueError:
        return None
    return d if isinstance(d, dict) and "rng" in d else None


def writers(nb, skip: set[int], fingerprints: dict[int, str]) -> dict[int, str]:
    """The cells in ``skip`` that changed the working folder's files in the full run (a later cell
    may read what they wrote, by a name no static reading can follow)."""
    code = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    out = {}
    for k, i in enumerate(code):
        if i in skip:
            before = _parse(fingerprints.get(i)) or {}
            after = _parse(fingerprints.get(code[k + 1] if k + 1 < len(code) else len(nb.cells))) or {}
            if before.get("files") != after.get("files"):
                out[i] = "it changed the working folder's files in the reference's full run"
    return out


def plan_from(nb, release, skip: set[int], fingerprints: dict[int, str]) -> ShortPlan:
    """The plan the proof will check: what to skip, and the generators' states the full run had
    before each skipped cell and each cell that follows one (``end``: after the last cell)."""
    names = keys(nb, release)
    code = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    wanted = set(skip) | {code[k + 1] if k + 1 < len(code) else len(nb.cells)
                          for k, i in enumerate(code) if i in skip}
    rng = {}
    for i in wanted:
        found = _parse(fingerprints.get(i))
        if found is not None:
            rng[names.get(i, "end") if i < len(nb.cells) else "end"] = {"rng": found["rng"], "raw": found.get("raw", {})}
    sources = {nb.cells[i].source for i in skip}
    kept = {c.source for i, c in enumerate(nb.cells) if c.cell_type == "code" and i not in skip}
    return ShortPlan(sorted(sources - kept), len(code), rng=rng)


def compare(nb, full: dict[int, str], short: dict[int, str], skip: set[int]) -> str | None:
    """The first graded cell (or the end) whose inputs differ between the full and the short run, said plainly."""
    last = -1
    points = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and course.grade_id(c)] + [len(nb.cells)]
    for i in points:
        label = f"cell {i} ({course.grade_id(nb.cells[i])})" if i < len(nb.cells) else "the end of the notebook"
        a, b = _parse(full.get(i)), _parse(short.get(i))
        if a is None or b is None or "names" not in a or "names" not in b:
            return f"{label} could not be fingerprinted: {(full.get(i) or '')[:150]} / {(short.get(i) or '')[:150]}"
        seeded = _seeded_by(nb, i)
        for d in (a, b):
            d["rng"] = {g: v for g, v in d.get("rng", {}).items() if g in seeded}
        for part in ("names", "rng", "settings"):
            if a.get(part) != b.get(part):
                diff = sorted(k for k in set(a.get(part, {})) | set(b.get(part, {}))
                              if a.get(part, {}).get(k) != b.get(part, {}).get(k))
                before = sorted(j for j in skip if last < j < i)
                what = {"names": "the value of", "rng": "the random-number generator", "settings": "torch's setting",
                        "files": "the file"}[part]
                return (f"before {label}, {what} {', '.join(diff[:5])} differs between the full and the short "
                        f"run; cells skipped before it: {before or 'none since the last graded cell'}")
        last = i
    return None
