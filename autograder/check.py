"""``autograder check``: a learner's own report on one notebook."""

from __future__ import annotations

import random
from pathlib import Path

from . import course, probe
from .coursedata import NotebookData
from .grading import grade_notebook
from .records import NotebookResult
from .references import run_reference
from .execute import Limits

SYMBOL = {"passed": "PASS", "failed": "FAIL", "not attempted": "TODO"}


def check(path: Path, hidden: bool = False, seed: int | None = None, limits: Limits | None = None,
          cache: bool = True, full: bool = False) -> NotebookResult:
    """Grade the learner's own notebook.  With the hidden tests, the run is short unless ``full``
    (:mod:`autograder.shortrun`: the reference proves it first, once, cached)."""
    root = course.find_root(path.parent)
    assignment, name = course.assignment_of_notebook(path, root)
    data = NotebookData.load(assignment, name)
    seed = probe.DEFAULT_SEED if seed is None else seed
    refs = None
    if hidden and data.has_hidden_tests:
        refs = run_reference(data, seed, limits=limits, cache_dir=(root / ".cache" / "reference") if cache else None,
                             short=not full)
        if not refs.ok:
            raise RuntimeError(refs.failure)
    result, _ = grade_notebook(path, data, student_id="me", seed=seed, refs=refs, limits=limits, full=full)
    return result


def hidden_available(path: Path) -> bool:
    """Whether this copy of the course holds the hidden tests of ``path`` (a student pack does not)."""
    root = course.find_root(path.parent)
    assignment, name = course.assignment_of_notebook(path, root)
    return NotebookData.load(assignment, name).has_hidden_tests


def report(result: NotebookResult, hidden: bool) -> str:
    lines = [f"{result.assignment}/{result.notebook}: "
             f"{'visible and hidden' if hidden else 'visible'} tests"]
    for e in result.exercises:
        title = e.title or e.id
        lines.append(f"  [{SYMBOL[e.status]}] {title}  ({e.score:g}/{e.points:g})")
        if e.status == "failed" and e.message:
            lines += ["         " + m for m in e.message.splitlines()]
        if e.status == "failed" and e.detail and e.detail not in e.message:
            lines += ["         as raised: " + m for m in e.detail.splitlines()[:6]]
    if result.error:
        lines.append(f"  run stopped early: {result.error}")
    if result.run.startswith("short"):
        lines.append(f"  ({result.run}: no graded cell depends on them; --full runs every cell)")
    counts = {s: sum(e.status == s for e in result.exercises) for s in SYMBOL}
    lines.append(f"  {counts['passed']} passed, {counts['failed']} failed, {counts['not attempted']} not attempted"
                 f"  —  score {result.score:g}/{result.max_score:g}")
    if not hidden:
        lines.append("  Hidden tests not run: your instructor runs them when grading (in the course repository,\n"
                     "  add --hidden to run them without seeing them).")
    return "\n".join(lines)


def exit_code(result: NotebookResult) -> int:
    """0: all passed; 1: something failed (or the run broke); 3: nothing failed but some not attempted."""
    if result.error or any(e.status == "failed" for e in result.exercises):
        return 1
    if any(e.status == "not attempted" for e in result.exercises):
        return 3
    return 0


def random_seed() -> int:
    return random.SystemRandom().randrange(1, 2**31 - 1)
