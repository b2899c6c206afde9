"""How the grader writes a file (whole or not at all), and how it tells that a file it read has changed.

Every file the grader keeps (a result, a seed, a reference, a submission time, an autograded notebook, a
release record, a Slurm task's output) is written here: into a temporary file of its own beside the
target (two writers never share one), then renamed over it, so a reader sees the old file or the new
one, never a half-written one, and a crash leaves no partial file under the real name.

A file written for people (a grade export, a class report, a feedback page) may stand where a person put
or edited a file of their own: :func:`write_for_people` replaces only what a command wrote there last, and
keeps anything else beside it first (the one rule, which nbgrader's feedback writer follows too,
:mod:`autograder.adapters.converters`; a release keeps a learner's notebook the same way).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import time
from pathlib import Path

from autograder.values.errors import UserError


def current_umask() -> int:
    """The process's umask now (a class's course sets it to 077 mid-run: :mod:`autograder.values.private`), read
    without changing it where the system says it (``/proc/self/status``)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError):  # no /proc here: ask by setting it back at once
        pass
    mask = os.umask(0o077)
    os.umask(mask)
    return mask


def write_atomic(path: os.PathLike, text: str | bytes) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(text.encode("utf-8") if isinstance(text, str) else text)
            os.fchmod(f.fileno(), 0o666 & ~current_umask())  # a plain open()'s mode (mkstemp's is 0600)
        os.replace(tmp, path)
    except BaseException:  # any failure (a full disk, an interrupt): no partial file stays behind
        try:
            os.unlink(tmp)
        except FileNotFoundError:  # already renamed, or never made
            pass
        raise
    return path


def stamp(path: os.PathLike) -> tuple[int, int, int] | None:
    """What says a file changed since it was read (its inode, modification time and size), or None when
    there is no such file: a process that keeps what it read checks this before reusing it."""
    try:
        st = Path(path).stat()
    except OSError:  # no such file (or not readable): the caller's reader says so
        return None
    return st.st_ino, st.st_mtime_ns, st.st_size


ASIDE_TIME = "%Y-%m-%dT%H%M%S"  # the TIME of a kept copy's name (aside_name)
KEPT = re.compile(r"\.mine-\d{4}-\d{2}-\d{2}T\d{6}(-\d+)?(\.[^.]+)?$")


def is_kept_copy(path: os.PathLike) -> bool:
    """Whether ``path`` is a person's file a command kept aside (:func:`aside_name`), not one of its kind: a
    ``NAME.mine-TIME.ipynb`` beside a released notebook is the learner's earlier copy, not a second notebook."""
    return bool(KEPT.search(Path(path).name))


def aside_name(path: Path, stamp: str, is_file: bool | None = None) -> Path:
    """Where a person's file is kept when a command writes in its place: ``STEM.mine-TIME.SUFFIX`` beside it
    (``NAME.mine-TIME`` for a folder; ``is_file`` says which where ``path`` itself is not there)."""
    is_file = path.is_file() if is_file is None else is_file
    n = 1
    while True:
        tag = f".mine-{stamp}" + (f"-{n}" if n > 1 else "")
        candidate = path.with_name(f"{path.stem}{tag}{path.suffix}" if is_file else f"{path.name}{tag}")
        if not candidate.exists() and not candidate.is_symlink():
            return candidate
        n += 1


def foreign_link(folder: os.PathLike) -> Path | None:
    """The first folder on the way to ``folder`` that is a link made by an account other than this one or root's,
    if any: another account could point it anywhere this account may write (on a shared machine, where this
    account is root, anywhere at all)."""
    here = Path(os.path.abspath(folder))
    for step in [*reversed(here.parents), here]:
        try:
            info = os.lstat(step)
        except OSError:  # not there (yet): nothing further on can be a link
            return None
        if os.path.islink(step) and info.st_uid not in (0, os.geteuid()):
            return step
    return None


def written_record(root: os.PathLike) -> Path:
    """Where a course keeps the digest of each file written for people, by absolute path."""
    return Path(root) / ".autograder" / "written.json"


def kept_folder(root: os.PathLike, path: os.PathLike) -> Path:
    """Where a person's file at ``path`` (inside the course at ``root``) is kept when a copy beside it would be
    taken for one of its kind (a feedback page that nbgrader hands out): the same place under
    ``.autograder/kept/``."""
    return Path(root) / ".autograder" / "kept" / Path(path).resolve().parent.relative_to(Path(root).resolve())


def _record(root: os.PathLike) -> dict:
    try:
        record = json.loads(written_record(root).read_text(encoding="utf-8"))
    except (OSError, ValueError):  # no record yet, or a damaged one: every file there counts as a person's
        return {}
    return record if isinstance(record, dict) else {}


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def keep_if_theirs(path: os.PathLike, root: os.PathLike, keep_in: os.PathLike | None = None,
                   same_as: bytes | None = None) -> Path | None:
    """Before a command of the course at ``root`` writes ``path``: what stands there, unless it is what a command
    wrote there last (or the same as ``same_as``, what is about to be written), is a person's, and is renamed
    aside (:func:`aside_name`), beside it or into the folder ``keep_in``; that name is returned, so that the
    command says where.  A link or a folder there is refused, and so is a way there through a folder link another
    account made (:func:`foreign_link`)."""
    path = Path(path)
    if path.is_symlink() or (path.exists() and not path.is_file()):
        raise UserError(f"{path} is not a plain file (a link or a folder): move it away, or write elsewhere")
    planted = foreign_link(path.parent)
    if planted is not None:
        raise UserError(f"{path} would be written through {planted}, a link another account made: write elsewhere")
    if not path.exists():
        return None
    try:
        digest = _digest(path.read_bytes())
    except OSError as exc:
        raise UserError(f"{path} exists and cannot be read ({exc.strerror}): move it away, or write elsewhere") from None
    if digest == _record(root).get(str(path.resolve())) or (same_as is not None and digest == _digest(same_as)):
        return None
    aside = aside_name(Path(keep_in) / path.name if keep_in else path, time.strftime(ASIDE_TIME), True)
    aside.parent.mkdir(parents=True, exist_ok=True)
    os.replace(path, aside)
    return aside


def remember_written(root: os.PathLike, paths: list[os.PathLike]) -> None:
    """Record each of ``paths`` as what a command of the course at ``root`` wrote there last (its digest now)."""
    record = _record(root)
    for path in paths:
        record[str(Path(path).resolve())] = _digest(Path(path).read_bytes())
    write_atomic(written_record(root), json.dumps(record, indent=1, sort_keys=True) + "\n")


def write_for_people(path: os.PathLike, content: str | bytes, root: os.PathLike,
                     keep_in: os.PathLike | None = None) -> Path | None:
    """Write ``path`` (whole), replacing what a command of the course at ``root`` wrote there last; a file
    there with other contents (made or edited by a person) is first kept aside (:func:`keep_if_theirs`), whose
    name is returned.  A writer that is not the course's own (nbgrader's feedback pages) follows the same rule
    through :func:`keep_if_theirs` and :func:`remember_written`.

    The record (:func:`written_record`) holds the digest of the last write to each path: a record lost to
    two commands writing it at once only makes a later write keep a copy it did not need to."""
    path = Path(path)
    data = content.encode("utf-8") if isinstance(content, str) else content
    aside = keep_if_theirs(path, root, keep_in, same_as=data)
    try:
        write_atomic(path, data)
    except BaseException:  # nothing written (a full disk, an interrupt): the person's file goes back where it was
        if aside is not None and not path.exists():
            os.replace(aside, path)
        raise
    remember_written(root, [path])
    return aside


def kept_line(path: os.PathLike, aside: os.PathLike) -> str:
    """The line a command prints when :func:`write_for_people` kept a person's file aside."""
    return f"{path} held a file this course had not written there: kept as {aside}"
