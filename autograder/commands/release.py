"""``autograder release``: regenerate ``notebooks/`` from ``solutions/`` with nbgrader's
``generate_assignment`` (:mod:`autograder.adapters.generate`).

Learners edit ``notebooks/`` in place, so writing a release there never loses their work:
:func:`release` keeps aside every file that differs from what the last release wrote (its record,
``notebooks/.release.json``) before putting the fresh one in its place.
"""


from __future__ import annotations

import filecmp
import hashlib
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

from autograder.adapters.generate import generate
from autograder.values import course, released
from autograder.values.files import ASIDE_TIME, aside_name, write_atomic

RECORD = ".release.json"
_RECORD_ABOUT = ("What `autograder release` last wrote into this folder. Before it writes a fresh release it keeps "
                 "aside, renamed NAME.mine-TIME, every file here that differs from what it wrote last time.")
_SKIP = ("__pycache__", ".ipynb_checkpoints")


def release(names: list[str] | None = None, root: Path | None = None, report=None) -> list[str]:
    """Regenerate ``notebooks/NAME`` for the given assignments (all by default), never losing a learner's work.

    nbgrader writes the release into a scratch folder; each of its files then replaces the one in
    ``notebooks/NAME`` only where that file is what the last release wrote (:data:`RECORD`) or holds
    the same cells as the new one (outputs and execution counts do not count).  A file that differs,
    a notebook a learner has worked in, is first renamed ``STEM.mine-TIME.SUFFIX`` beside it and
    ``report`` (a callable taking one line) is told where.  Files the release does not write, such as
    a learner's own, are left alone; one the last release wrote and this one does not is removed
    when unchanged.  Running it again changes nothing.
    """
    root = root or course.find_root()
    names = course.assignment_names(root, names)
    say = report or (lambda line: None)
    dest_root = course.folder(root, "release")
    stamp = time.strftime(ASIDE_TIME)
    with tempfile.TemporaryDirectory() as tmp:
        fresh_root = Path(tmp) / "release"
        generate(names, root, fresh_root, db_url=course.gradebook_url(root))
        for name in names:
            recorded = read_record(dest_root).get(name)
            keep_handed_out(dest_root / name, recorded, root, name)
            for line in install(fresh_root / name, dest_root / name, recorded, stamp, root):
                say(line)
            write_record(dest_root, {name: fingerprints(fresh_root / name)})
    return names


def _files(folder: Path) -> list[str]:
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
            for rel in _files(folder)}


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


def install(fresh: Path, dest: Path, recorded: dict | None, stamp: str, root: Path) -> list[str]:
    """Copy the release ``fresh`` into ``dest``, keeping aside what a person changed; one line per file kept."""
    recorded = recorded or {}
    lines = []

    def shown(p: Path) -> str:
        try:
            return str(p.relative_to(root))
        except ValueError:
            return str(p)

    new = _files(fresh)
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
    for rel in sorted(set(recorded) - set(new)):
        dst = dest / rel
        if not (dst.exists() or dst.is_symlink()):
            continue
        if _unchanged(dst, None, recorded[rel]):
            dst.unlink()
        else:
            lines.append(f"kept your {shown(dst)}: the release no longer has it, and it differs from the one "
                         "the last release wrote")
    return lines


def out_of_sync(root: Path | None = None) -> list[str]:
    """Files under ``notebooks/`` that differ from a fresh release of ``solutions/``."""
    root = root or course.find_root()
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        assignments = course.assignments(root)
        generate([a.name for a in assignments], root, tmp / "release", db_url=course.sqlite_url(tmp / "gb.db"),
                 handed_out=False)
        for a in assignments:
            fresh, committed = tmp / "release" / a.name, a.release_dir
            if not committed.is_dir():
                problems.append(f"notebooks/{a.name} is missing")
                continue
            cmp = filecmp.dircmp(fresh, committed, ignore=["__pycache__", ".ipynb_checkpoints"])
            stack = [(cmp, Path(a.name))]
            while stack:
                c, rel = stack.pop()
                problems += [f"notebooks/{rel / f} differs from a fresh release" for f in c.diff_files]
                problems += [f"notebooks/{rel / f} is missing" for f in c.left_only]
                problems += [f"notebooks/{rel / f} is not in solutions/" for f in c.right_only]
                stack += [(sub, rel / name) for name, sub in c.subdirs.items()]
        shutil.rmtree(tmp / "release", ignore_errors=True)
    return problems


def run(args) -> int:
    names = release(args.assignments or None, report=print)
    print("released: " + ", ".join(f"notebooks/{n}" for n in names))
    return 0
