"""The files that ship beside a notebook: an explicit list per notebook, never "the rest of the folder".

A solution folder may hold files no learner may see: a jupytext copy of the notebook (its solutions
and hidden tests as plain Python), an editor's backup, the author's notes.  So each solution
notebook names the files its release needs (what it imports or opens), relative to its folder, in
its metadata::

    "metadata": {"autograder": {"support_files": ["distlab.py", "checks07.py"]}}

Only those files reach a release (``notebooks/``), a handout pack, the exchange or a grading kernel,
and only they count in the digest that says when an assignment's tests changed.  nbgrader's own
``generate_assignment`` and exchange copy "every file but the ignored ones", so the course's
``nbgrader_config.py`` adds :func:`nbgrader_ignores` to ``CourseDirectory.ignore``: the names of the
files of a solution or release folder that no notebook lists, as the folders are when the
configuration loads, and jupytext copies and editor leftovers whenever they appear.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import shutil
from pathlib import Path, PurePosixPath

from autograder.values.errors import UserError

KEY = "support_files"
# what editors and merge tools leave beside a file, whenever they do: never shipped
LEFTOVERS = ["*~", "*.swp", "*.swo", "*.bak", ".#*", "#*#", "*.orig", "*.rej"]
# the files jupytext pairs with a notebook NAME.ipynb: NAME.py, NAME.md, NAME.pct.py, ...
JUPYTEXT = [".py", ".md", ".Rmd", ".qmd", ".myst", ".*.py"]
_SKIP_DIRS = ("__pycache__", ".ipynb_checkpoints")


def declared(nb) -> list:
    """The list a notebook (parsed JSON or an nbformat node) declares, as written (unchecked)."""
    meta = (nb.get("metadata") or {}) if isinstance(nb, dict) else {}
    found = (meta.get("autograder") or {}).get(KEY, []) if isinstance(meta.get("autograder"), dict) else []
    return found if isinstance(found, list) else [found]


def _notebooks(folder: Path) -> list[Path]:
    return sorted(p for p in Path(folder).glob("*.ipynb") if p.is_file() and not p.is_symlink())


def _read(path: Path) -> dict:
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UserError(f"{path} is not a readable notebook ({type(exc).__name__}): fix or remove it") from None
    return found if isinstance(found, dict) else {}


def listed(folder: Path) -> list[str]:
    """The support files the notebooks of ``folder`` list (relative ``/`` paths, sorted), each checked:
    a plain relative path inside the folder, not hidden, not a notebook, a regular file and not a link."""
    folder = Path(folder)
    out: set[str] = set()
    for nb in _notebooks(folder):
        for name in declared(_read(nb)):
            where = f"{nb} lists the support file {name!r}"
            if not isinstance(name, str) or not name or "\\" in name or "\x00" in name:
                raise UserError(f"{where}, which is not a file name: fix metadata.autograder.{KEY}")
            rel = PurePosixPath(name)
            if rel.is_absolute() or any(part in ("", ".", "..") or part.startswith(".") for part in rel.parts) \
                    or rel.suffix == ".ipynb":
                raise UserError(f"{where}: name a file inside {folder}, not hidden and not a notebook, "
                                f"in metadata.autograder.{KEY}")
            path = folder.joinpath(*rel.parts)
            if any(folder.joinpath(*rel.parts[:k]).is_symlink() for k in range(1, len(rel.parts) + 1)) \
                    or not path.is_file():
                raise UserError(f"{where}, which is not a regular file there: add it, or take it off "
                                f"metadata.autograder.{KEY}")
            out.add(rel.as_posix())
    return sorted(out)


def files(folder: Path) -> list[str]:
    """Every file under ``folder`` but notebooks, caches and checkpoints (relative ``/`` paths)."""
    folder = Path(folder)
    out = []
    for root, dirs, names in os.walk(folder, followlinks=False):
        dirs[:] = [d for d in dirs if d not in _SKIP_DIRS]
        for n in names:
            rel = (Path(root) / n).relative_to(folder).as_posix()
            if not (n.endswith(".ipynb") and Path(root) == folder):
                out.append(rel)
    return sorted(out)


def _listed_or_none(folder: Path) -> list[str]:
    """:func:`listed`, or nothing when a list does not check out (release and grading say why)."""
    try:
        return listed(folder)
    except UserError:  # a list that does not check out ships nothing: every file is unlisted
        return []


def unlisted(folder: Path, keep: list[str] | None = None) -> list[str]:
    """The files of ``folder`` that ship with nothing: not a notebook and on no notebook's list
    (``keep``: that list, when the caller has read it already)."""
    keep = set(_listed_or_none(folder) if keep is None else keep)
    return [f for f in files(folder) if f not in keep]


def copy_listed(folder: Path, names: list[str] | tuple[str, ...], dest: Path) -> None:
    """Copy the listed files of ``folder`` into ``dest`` (same relative paths; links never followed)."""
    for name in names:
        src = Path(folder).joinpath(*PurePosixPath(name).parts)
        if src.is_symlink() or not src.is_file():
            raise UserError(f"the support file {src} is missing or not a regular file: restore it, or take it "
                            f"off metadata.autograder.{KEY} of its notebook")
        target = Path(dest).joinpath(*PurePosixPath(name).parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, target)


def digest(folder: Path, names: list[str] | tuple[str, ...]) -> str:
    """A digest of the listed files (names and bytes): the hidden tests and the reference may read
    them, so a change to one is a change of the tests."""
    h = hashlib.sha256()
    for name in sorted(names):
        h.update(name.encode() + b"\0")
        h.update(hashlib.sha256(Path(folder).joinpath(*PurePosixPath(name).parts).read_bytes()).digest())
    return h.hexdigest()


def prune(folder: Path, names: list[str] | tuple[str, ...]) -> list[str]:
    """Remove from ``folder`` (a freshly generated release, never a person's folder) every file that is
    neither a notebook nor listed; return what went."""
    gone = []
    for rel in files(folder):
        if rel not in names:
            (Path(folder) / rel).unlink()
            gone.append(rel)
    return gone


# what no assignment folder ships, whatever its notebooks list (the course's config and a student pack's)
NEVER_SHIPPED = (".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback", ".cache")


def nbgrader_ignores(root: Path, *kinds: str) -> list[str]:
    """Patterns for nbgrader's ``CourseDirectory.ignore``, for the assignment folders under ``root/KIND``
    for each of ``kinds`` (say ``solutions``, ``notebooks``): what a course never ships (:data:`NEVER_SHIPPED`:
    caches, checkpoints, feedback), the editor leftovers; a jupytext copy of
    any notebook (``NN_topic.py``, ``.md``, ...) whenever it appears; each unlisted file there now; and, in
    the folders of every kind after the first (the source), each notebook there now that the source's folder
    does not have (a learner's copy kept aside by a release, ``NN_topic.mine-TIME.ipynb``, or of their own:
    nbgrader's ``release_assignment`` would hand it to the class).

    nbgrader matches a pattern against a file's name within its own folder, so a pattern is a name,
    not a path: a name that one folder lists and another does not is left to :func:`prune` (which
    ``autograder release`` and ``handout`` apply to what nbgrader generates)."""
    folders = []
    for kind in kinds:
        base = Path(root) / kind
        if base.is_dir():
            folders += sorted(p for p in base.iterdir() if p.is_dir() and not p.name.startswith("."))
    lists = {folder: _listed_or_none(folder) for folder in folders}  # each folder's notebooks read once
    shipped = {PurePosixPath(n).name for names in lists.values() for n in names}
    source = Path(root) / kinds[0] if kinds else None
    made = {nb.name for folder in folders if folder.parent == source for nb in _notebooks(folder)}
    out = list(LEFTOVERS)
    for folder in folders:
        for nb in _notebooks(folder):
            out += [glob.escape(nb.stem) + ext for ext in JUPYTEXT]
            if folder.parent != source and nb.name not in made:  # (never the name of a source notebook)
                out.append(glob.escape(nb.name))
        out += [glob.escape(PurePosixPath(rel).name) for rel in unlisted(folder, lists[folder])]
    return [*NEVER_SHIPPED, *(p for p in dict.fromkeys(out) if p not in shipped)]
