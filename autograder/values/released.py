"""Every version of a graded or locked cell the course ever handed out, kept where no learner writes.

An instructor who fixes a test after handing a notebook out (its message, its points) leaves the class
holding copies of the earlier cell.  Grading always runs the current cells; whether a submitted cell was
*edited* is judged against every version a release handed out, not against the current one alone, so an
honest copy of an earlier release is never called an edit, and a cell that matches no release still is.

The record is the course's own, in ``.autograder/released_cells.json`` beside the seeds (back it up with
the gradebook; it never reaches a learner).  Nothing of it is read from a submission: nbgrader's checksum
in a submitted cell is written on the learner's side and proves nothing.  Each version is a pair of
digests, of the cell's source and of its nbgrader flags and points (:func:`version`), per assignment,
notebook and grade id.

Every release passes through nbgrader's ``generate_assignment`` with the course's steps (``autograder
release``, whose ``notebooks/`` ``nbgrader release_assignment`` hands out; ``autograder handout`` packs; the
formgrader's *Generate*), and :func:`recording_step` runs last among them
(:func:`autograder.values.learner_view.generate_steps`): what it sees is what that release writes.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import json
import os
from pathlib import Path

from autograder.values import course
from autograder.values.files import write_atomic

RECORD = Path(".autograder") / "released_cells.json"
_ABOUT = ("Every version of each graded or locked cell that a release of this course handed out (digests of its "
          "source and of its nbgrader flags and points). A submitted cell that matches one of them is not an edit.")
_FLAGS = ("grade", "solution", "locked", "points", "task")


def record_path(root: os.PathLike) -> Path:
    return Path(root) / RECORD


def meta_signature(cell) -> dict:
    """What of a cell's nbgrader metadata decides its grading: its flags and points."""
    m = course.nbgrader_meta(cell)
    return {k: m.get(k) for k in _FLAGS}


def _source(cell) -> str:
    src = cell.get("source", "") if isinstance(cell, dict) else ""
    return "".join(map(str, src)) if isinstance(src, list) else str(src)


def source_digest(source: str) -> str:
    """A digest of a cell's source, as a release writes it (trailing newlines dropped, as the course's
    notebooks are formatted)."""
    return hashlib.sha256(source.rstrip("\n").encode("utf-8", "replace")).hexdigest()[:32]


def meta_digest(cell) -> str:
    """A digest of :func:`meta_signature` (points as numbers: ``2`` and ``2.0`` are the same points)."""
    sig = {k: (float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v)
           for k, v in meta_signature(cell).items()}
    return hashlib.sha256(json.dumps(sig, sort_keys=True, default=str).encode()).hexdigest()[:32]


def version(cell) -> tuple[str, str]:
    """One version of a cell: the digests of its source and of its nbgrader flags and points."""
    return source_digest(_source(cell)), meta_digest(cell)


def versions_of(nb) -> dict[str, list[list[str]]]:
    """The version of each cell of ``nb`` that has a grade id, by grade id."""
    return {gid: [list(version(c))] for c in nb.cells if (gid := course.grade_id(c))}


def _read_all(root: os.PathLike) -> dict:
    try:
        found = json.loads(record_path(root).read_text(encoding="utf-8")).get("assignments")
    except (OSError, ValueError, AttributeError):  # none yet, or damaged: only the current release counts
        return {}
    return found if isinstance(found, dict) else {}


def read(root: os.PathLike, assignment: str, notebook: str) -> dict[str, list[tuple[str, str]]]:
    """The versions of one notebook's cells that releases handed out, by grade id ({} where none is kept)."""
    cells = _read_all(root).get(assignment, {})
    cells = cells.get(notebook, {}) if isinstance(cells, dict) else {}
    if not isinstance(cells, dict):
        return {}
    return {str(gid): [(str(v[0]), str(v[1])) for v in vs if isinstance(v, list) and len(v) == 2]
            for gid, vs in cells.items() if isinstance(vs, list)}


@contextlib.contextmanager
def _locked(root: os.PathLike):
    """One writer of the record at a time (a release and a grade's gradebook step may run together)."""
    lock = record_path(root).with_name(record_path(root).name + ".lock")
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def add(root: os.PathLike, assignment: str, notebook: str, nb) -> None:
    """Add the versions of ``nb``'s cells (a notebook as a release hands it out) to the record."""
    with _locked(root):
        everything = _read_all(root)
        notebooks = everything.setdefault(assignment, {})
        if not isinstance(notebooks, dict):
            notebooks = everything[assignment] = {}
        cells = notebooks.setdefault(notebook, {})
        if not isinstance(cells, dict):
            cells = notebooks[notebook] = {}
        changed = False
        for gid, (mine,) in versions_of(nb).items():
            kept = cells.setdefault(gid, [])
            if not isinstance(kept, list):
                kept = cells[gid] = []
            if mine not in kept:
                kept.append(mine)
                changed = True
        if changed or not record_path(root).is_file():
            write_atomic(record_path(root), json.dumps({"about": _ABOUT, "assignments": everything}, indent=1,
                                                       sort_keys=True) + "\n")


@functools.cache
def recording_step():
    """nbgrader's preprocessor that adds the notebook being generated to the course's record (see the module);
    ``c.RecordReleasedCells.enabled = False`` turns it off for a notebook generated but never handed out."""
    from nbgrader.preprocessors import NbGraderPreprocessor  # (imported on first use: nbgrader takes a second)

    class RecordReleasedCells(NbGraderPreprocessor):
        def preprocess(self, nb, resources):
            info = resources.get("nbgrader") or {}
            root = self.config.get("CourseDirectory", {}).get("root") or os.getcwd()  # nbgrader runs in the course
            add(root, info["assignment"], info["notebook"], nb)
            return nb, resources

    return RecordReleasedCells
