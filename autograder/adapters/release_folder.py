"""The release folder (``notebooks/``) is where learners work, so every writer of a release there keeps their work.

Two front doors write a release into ``notebooks/ASSIGNMENT``: ``autograder release``
(:mod:`autograder.commands.release`, which generates into a scratch folder and installs from it) and nbgrader's
own ``generate_assignment``, which the formgrader's *Generate* runs and which deletes the whole folder before
it writes.  One rule, here, decides what either keeps: a file that differs from what the last release wrote
(its record, ``notebooks/.release.json``) and from the new one, byte for byte or, for a notebook, cell for cell
(outputs do not count), is renamed ``STEM.mine-TIME.SUFFIX`` beside the fresh file first (:func:`install`); a
file the release does not write (a learner's own, a copy kept aside earlier) is left alone.

Inside nbgrader, :class:`autograder.adapters.converters.KeepLearnersWork` (the last of the course's
``generate_assignment`` steps, in ``nbgrader_config.py``) sets each assignment's folder aside before nbgrader
clears it, and once nbgrader has written the fresh release there, puts it back by :func:`put_back`.  A Generate
that stops half-way leaves the folder set aside (:func:`set_aside_name`); the next Generate or
``autograder release`` brings it back first (:func:`bring_back`).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from pathlib import Path

from autograder.values import course, nbfmt, released, support
from autograder.values.errors import UserError
from autograder.values.files import ASIDE_TIME, aside_name, write_atomic

RECORD = ".release.json"
_RECORD_ABOUT = ("What `autograder release` last wrote into this folder. Before it writes a fresh release it keeps "
                 "aside, renamed NAME.mine-TIME, every file here that differs from what it wrote last time.")
_SKIP = ("__pycache__", ".ipynb_checkpoints")


def files(folder: Path) -> list[str]:
    """The files under ``folder`` (relative, ``/``-separated), without caches and editor checkpoints."""
    if not folder.is_dir():
        return []
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*")
                  if p.is_file() and not any(part in _SKIP for part in p.relative_to(folder).parts))


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def cells_digest(path: Path) -> str | None:
    """A digest of a notebook's cells (type and source, in order): what a person writes, not what a run
    adds (outputs, execution counts, metadata).  None for a file that is not notebook JSON."""
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
        cells = nb["cells"]
        text = json.dumps([[c.get("cell_type"), "".join(c.get("source") or "") if isinstance(c.get("source"), list)
                            else c.get("source") or ""] for c in cells])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):  # not notebook JSON: no digest, never "same"
        return None
    return hashlib.sha256(text.encode()).hexdigest()


def fingerprints(folder: Path) -> dict[str, dict]:
    """What :data:`RECORD` keeps of each file of a release: its bytes' digest and, for a notebook, its cells'."""
    return {rel: {"sha256": _sha(folder / rel),
                  **({"cells": cells_digest(folder / rel)} if rel.endswith(".ipynb") else {})}
            for rel in files(folder)}


def read_record(dest_root: Path) -> dict[str, dict]:
    """The record of what the last release wrote, per assignment ({} where there is none or it is unreadable)."""
    try:
        found = json.loads((Path(dest_root) / RECORD).read_text(encoding="utf-8")).get("assignments")
    except (OSError, ValueError, AttributeError):  # no record (or a damaged one): compare with the new release only
        return {}
    return found if isinstance(found, dict) else {}


def write_record(dest_root: Path, entries: dict[str, dict]) -> None:
    """Record ``entries`` (assignment -> :func:`fingerprints`) in :data:`RECORD`, keeping the other assignments'."""
    dest_root = Path(dest_root)
    dest_root.mkdir(parents=True, exist_ok=True)
    record = {**read_record(dest_root), **entries}
    text = json.dumps({"about": _RECORD_ABOUT, "assignments": record}, indent=1, sort_keys=True) + "\n"
    write_atomic(dest_root / RECORD, text)


def _unchanged(current: Path, fresh: Path | None, recorded: dict | None) -> bool:
    """Whether ``current`` holds nothing of a person's: what the last release wrote (``recorded``), or the
    same as the new release (``fresh``), byte for byte or, for a notebook, cell for cell."""
    if not current.is_file() or current.is_symlink():
        return False
    digest = _sha(current)
    if (fresh is not None and digest == _sha(fresh)) or (recorded and digest == recorded.get("sha256")):
        return True
    if current.suffix != ".ipynb":
        return False
    cells = cells_digest(current)
    if cells is None:
        return False
    return (fresh is not None and cells == cells_digest(fresh)) or bool(recorded and cells == recorded.get("cells"))


def keep_handed_out(dest: Path, recorded: dict | None, root: Path, assignment: str) -> None:
    """Add the notebooks the last release wrote into ``dest``, where they are still byte for byte what it wrote
    (:data:`RECORD`), to the course's record of released cells (:mod:`autograder.values.released`) before a
    new release replaces them: a release made before the course kept that record was handed out too."""
    for rel, fingerprint in (recorded or {}).items():
        path = dest / rel
        if "/" in rel or not rel.endswith(".ipynb") or path.is_symlink() or not path.is_file() \
                or not isinstance(fingerprint, dict) or _sha(path) != fingerprint.get("sha256"):
            continue
        try:
            nb = course.read(path)
        except (OSError, ValueError):  # not a notebook after all: nothing of it was handed out as cells
            continue
        released.add(root, assignment, path.stem, nb)


def install(fresh: Path, dest: Path, recorded: dict | None, stamp: str, root: Path, whole: bool = True) -> list[str]:
    """Copy the release ``fresh`` into ``dest``, keeping aside what a person changed; one line per file kept.
    A file the last release wrote and ``fresh`` lacks goes where it is unchanged, unless ``fresh`` is not the
    ``whole`` release (some of its notebooks only)."""
    recorded = recorded or {}
    lines = []

    def shown(p: Path) -> str:
        try:
            return str(p.relative_to(root))
        except ValueError:
            return str(p)

    new = files(fresh)
    for rel in new:
        src, dst = fresh / rel, dest / rel
        if (dst.exists() or dst.is_symlink()) and not _unchanged(dst, src, recorded.get(rel)):
            aside = aside_name(dst, stamp)
            os.replace(dst, aside)
            lines.append(f"kept your {shown(dst)} as {shown(aside)} (it differs from the release it replaces); "
                         f"{shown(dst)} is the fresh release")
        dst.parent.mkdir(parents=True, exist_ok=True)
        part = dst.with_name(dst.name + ".release-tmp")
        shutil.copyfile(src, part)
        os.replace(part, dst)
    for rel in sorted(set(recorded) - set(new)) if whole else ():
        dst = dest / rel
        if not (dst.exists() or dst.is_symlink()):
            continue
        if _unchanged(dst, None, recorded[rel]):
            dst.unlink()
        else:
            lines.append(f"kept your {shown(dst)}: the release no longer has it, and it differs from the one "
                         "the last release wrote")
    return lines


def set_aside_name(dest: Path) -> Path:
    """Where a Generate keeps ``dest`` while nbgrader writes it again."""
    return dest.with_name(f".{dest.name}.set-aside")


def bring_back(dest: Path) -> None:
    """Put back a folder that a Generate stopped half-way set aside (:func:`set_aside_name`); a
    :class:`UserError` when a release was written in its place since, which only a person can merge."""
    held = set_aside_name(dest)
    if not (held.exists() or held.is_symlink()):
        return
    if dest.exists() or dest.is_symlink():
        raise UserError(f"{held} holds what was in {dest} before a Generate that stopped half-way: move what you "
                        f"want to keep from it into {dest}, remove it, and release again")
    os.rename(held, dest)


def _normalized(fresh: Path, root: Path, assignment: str) -> None:
    """What ``autograder release`` makes of nbgrader's output: only the notebooks and the files they list,
    each notebook normalized (:mod:`autograder.values.nbfmt`)."""
    support.prune(fresh, support.listed(course.Assignment(assignment, root).solution_dir))
    for nb in fresh.glob("*.ipynb"):
        nbfmt.format_file(nb)


def put_back(dest: Path, root: Path, assignment: str, whole: bool = True) -> list[str]:
    """After nbgrader wrote a fresh release into ``dest`` (``whole``: every notebook of the assignment, else some),
    with the folder that stood there set aside (:func:`set_aside_name`): the folder back in its place, the
    release installed into it by :func:`install`, normalized and recorded as ``autograder release`` leaves it;
    one line per file kept aside."""
    held, fresh = set_aside_name(dest), dest.with_name(f".{dest.name}.fresh")
    _normalized(dest, root, assignment)
    shutil.rmtree(fresh, ignore_errors=True)
    recorded = read_record(dest.parent).get(assignment)
    fingerprint = fingerprints(dest) if whole else {**(recorded or {}), **fingerprints(dest)}
    lines = []
    if held.is_dir():
        os.rename(dest, fresh)
        os.rename(held, dest)
        keep_handed_out(dest, recorded, root, assignment)
        lines = install(fresh, dest, recorded, time.strftime(ASIDE_TIME), root, whole)
        shutil.rmtree(fresh)
    write_record(dest.parent, {assignment: fingerprint})
    return lines
