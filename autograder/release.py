"""What a learner sees, made by nbgrader's own code: the released notebooks (``generate_assignment``),
the pristine release a submission is compared with, and the visible part of a test cell.

Every way of removing hidden tests or solutions goes through nbgrader's preprocessors
(``ClearSolutions``, ``ClearHiddenTests``) with the course's configuration, so there is one
rule for what learners get.

Learners edit ``notebooks/`` in place, so writing a release there never loses their work:
:func:`release` keeps aside every file that differs from what the last release wrote (its record,
``notebooks/.release.json``) before putting the fresh one in its place.
"""

from __future__ import annotations

import copy
import filecmp
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

from . import course, nbfmt, support


def tool_env(base: dict[str, str] | None = None) -> dict[str, str]:
    """An environment for nbgrader and Jupyter's tools: this interpreter's ``bin`` first on PATH
    (nbgrader runs ``alembic``, the gradebook's migrations, from PATH)."""
    env = dict(os.environ if base is None else base)
    bindir = str(Path(sys.executable).parent)
    if env.get("PATH", "").split(os.pathsep)[0] != bindir:
        env["PATH"] = os.pathsep.join([bindir, env.get("PATH", "")])
    return env


def pristine_release(solution: nbformat.NotebookNode, root: Path) -> nbformat.NotebookNode:
    """The learner notebook as ``nbgrader generate_assignment`` makes it from ``solution`` (sources and
    grading metadata, without checksums), built in memory with nbgrader's own preprocessors.

    Grading compares with this, never with a file in ``notebooks/``: learners edit their copy there
    in place, and an edited copy must not become the template it is judged against.
    """
    from nbgrader.preprocessors import ClearHiddenTests, ClearSolutions

    cfg = course.config(root)
    nb = nbformat.from_dict(copy.deepcopy(solution))
    nb, resources = ClearSolutions(config=cfg).preprocess(nb, {})
    nb, _ = ClearHiddenTests(config=cfg).preprocess(nb, resources)
    return nbfmt.normalize(nb)


def visible_source(cell) -> str:
    """The source of a test cell as learners get it: nbgrader's ``ClearHiddenTests`` applied to it."""
    from nbgrader.preprocessors import ClearHiddenTests

    one = nbformat.v4.new_notebook(cells=[nbformat.from_dict(copy.deepcopy(dict(cell)))])
    one, _ = ClearHiddenTests(enforce_metadata=False).preprocess(one, {})
    return one.cells[0].source


_GENERATE = """
import sys
from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader
from nbgrader.apps import NbGraderAPI
from nbgrader.coursedir import CourseDirectory

root, release_dir, db_url, *names = sys.argv[1:]
config = Config()
config.merge(PyFileConfigLoader("nbgrader_config.py", path=root).load_config())
config.CourseDirectory.root = root
config.CourseDirectory.release_directory = release_dir
if db_url:
    config.CourseDirectory.db_url = db_url
api = NbGraderAPI(coursedir=CourseDirectory(config=config), config=config)
for name in names:
    result = api.generate_assignment(name, force=True, create=True)
    if not result["success"]:
        sys.exit(f"nbgrader generate_assignment {name} failed:\\n{result.get('error') or result.get('log')}")
"""


def generate(names: list[str], root: Path, release_dir: Path, db_url: str | None = None,
             normalize: bool = True) -> None:
    """Run nbgrader's ``generate_assignment`` (its own code, one process for all ``names``) into
    ``release_dir``, recording the assignments in the gradebook; keep only the notebooks and the files
    they list (:mod:`autograder.support`); then normalize the notebooks."""
    if not names:
        return
    proc = subprocess.run([sys.executable, "-c", _GENERATE, str(root), str(release_dir), db_url or "", *names],
                          cwd=root, capture_output=True, text=True, env=tool_env())
    if proc.returncode != 0:
        raise RuntimeError(f"generating {', '.join(names)} failed:\n{proc.stdout}\n{proc.stderr}")
    for name in names:  # the course's nbgrader_config ignores them already; a configuration that does not
        # (an older copy of it) must not ship them either
        support.prune(Path(release_dir) / name, support.listed(course.Assignment(name, root).solution_dir))
    if normalize:
        for name in names:
            for nb in (Path(release_dir) / name).glob("*.ipynb"):
                nbfmt.format_file(nb)


def register(names: list[str], root: Path, db_url: str) -> None:
    """Enter assignments and their cells into the gradebook as ``generate_assignment`` does
    (the generated files are discarded)."""
    with tempfile.TemporaryDirectory() as tmp:
        generate(names, root, Path(tmp), db_url, normalize=False)


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
    stamp = time.strftime("%Y-%m-%dT%H%M%S")
    with tempfile.TemporaryDirectory() as tmp:
        fresh_root = Path(tmp) / "release"
        generate(names, root, fresh_root, db_url=f"sqlite:///{root / 'gradebook.db'}")
        for name in names:
            recorded = read_record(dest_root).get(name)
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
    tmp = dest_root / (RECORD + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, dest_root / RECORD)


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


def aside_name(path: Path, stamp: str) -> Path:
    """Where a person's file is kept when a release replaces it: ``STEM.mine-TIME.SUFFIX`` beside it."""
    n = 1
    while True:
        tag = f".mine-{stamp}" + (f"-{n}" if n > 1 else "")
        candidate = path.with_name(f"{path.stem}{tag}{path.suffix}" if path.is_file() else f"{path.name}{tag}")
        if not candidate.exists() and not candidate.is_symlink():
            return candidate
        n += 1


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
        generate([a.name for a in assignments], root, tmp / "release", db_url=f"sqlite:///{tmp / 'gb.db'}")
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
