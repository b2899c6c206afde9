"""How the grader writes a file (whole or not at all), and how it tells that a file it read has changed.

Every file the grader keeps (a result, a seed, a reference, a submission time, an autograded notebook, a
release record, a Slurm task's output) is written here: into a temporary file of its own beside the
target (two writers never share one), then renamed over it, so a reader sees the old file or the new
one, never a half-written one, and a crash leaves no partial file under the real name.

A file written for people (a grade export, a class report, a feedback page) may stand where a person put
or edited a file of their own: :func:`write_for_people` replaces only what a command wrote there last, and
keeps anything else beside it first (the one rule; a release keeps a learner's notebook the same way).
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

# the process's umask, read once: the file gets the mode a plain open() would give it (mkstemp's is 0600)
_UMASK = os.umask(0)
os.umask(_UMASK)


def write_atomic(path: os.PathLike, text: str | bytes) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(text.encode("utf-8") if isinstance(text, str) else text)
            os.fchmod(f.fileno(), 0o666 & ~_UMASK)
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


def written_record(root: os.PathLike) -> Path:
    """Where a course keeps the digest of each file written for people, by absolute path."""
    return Path(root) / ".autograder" / "written.json"


def write_for_people(path: os.PathLike, content: str | bytes, root: os.PathLike,
                     keep_in: os.PathLike | None = None) -> Path | None:
    """Write ``path`` (whole), replacing what a command of the course at ``root`` wrote there last; a file
    there with other contents (made or edited by a person) is first renamed aside (:func:`aside_name`),
    beside it or, where a copy beside it would be taken for one of its kind (a feedback page that nbgrader
    hands out), into the folder ``keep_in``; that name is returned so that the command says where.  A link
    or a folder there is refused.

    The record (:func:`written_record`) holds the digest of the last write to each path: a record lost to
    two commands writing it at once only makes a later write keep a copy it did not need to."""
    path = Path(path)
    data = content.encode("utf-8") if isinstance(content, str) else content
    if path.is_symlink() or (path.exists() and not path.is_file()):
        raise UserError(f"{path} is not a plain file (a link or a folder): move it away, or write elsewhere")
    record_file = written_record(root)
    try:
        record = json.loads(record_file.read_text(encoding="utf-8"))
        record = record if isinstance(record, dict) else {}
    except (OSError, ValueError):  # no record yet, or a damaged one: every file there counts as a person's
        record = {}
    key = str(path.resolve())
    aside = None
    if path.exists():
        try:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
        except OSError as exc:
            raise UserError(f"{path} exists and cannot be read ({exc.strerror}): move it away, or write elsewhere") from None
        if digest not in (record.get(key), hashlib.sha256(data).hexdigest()):
            aside = aside_name(Path(keep_in) / path.name if keep_in else path, time.strftime(ASIDE_TIME), True)
            aside.parent.mkdir(parents=True, exist_ok=True)
            os.replace(path, aside)
    try:
        write_atomic(path, data)
    except BaseException:  # nothing written (a full disk, an interrupt): the person's file goes back where it was
        if aside is not None and not path.exists():
            os.replace(aside, path)
        raise
    record[key] = hashlib.sha256(data).hexdigest()
    write_atomic(record_file, json.dumps(record, indent=1, sort_keys=True) + "\n")
    return aside


def kept_line(path: os.PathLike, aside: os.PathLike) -> str:
    """The line a command prints when :func:`write_for_people` kept a person's file aside."""
    return f"{path} held a file this course had not written there: kept as {aside}"
