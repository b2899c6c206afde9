"""How the grader writes a file (whole or not at all), and how it tells that a file it read has changed.

Every file the grader keeps (a result, a seed, a reference, a submission time, an autograded notebook, a
release record, a Slurm task's output) is written here: into a temporary file of its own beside the
target (two writers never share one), then renamed over it, so a reader sees the old file or the new
one, never a half-written one, and a crash leaves no partial file under the real name.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

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
