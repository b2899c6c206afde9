"""Reading a folder that another account controls: by file descriptor, so that what was checked is what is copied.

A student owns their submission folder in nbgrader's exchange and may change it at any moment, also while
the instructor's collect reads it.  A check by path and a copy by path are two lookups: between them the
folder can become a link to the solutions, or a file a named pipe that blocks whoever opens it.  :func:`take`
looks every name up once.  Each folder is opened relative to the folder above it without following a link
(``O_NOFOLLOW``), each file is opened without following a link and without waiting (``O_NONBLOCK``, so a
pipe opens at once and is then refused), and what an entry is (a plain file or a folder, its owner, its
size) is asked of the open descriptor (``fstat``).  The bytes judged are the bytes read, never more than the
bound given, and they are written as they are read into a folder of the reader's own (``into``), which is
then the only copy anything else reads.  The tree's digest and its newest change time come from the same
reads; a change time is read after the file's bytes, so a write during the read is never older than the
time reported.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
ENTRY_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
BLOCK = 1 << 20


@dataclass(frozen=True)
class Taken:
    """What one :func:`take` of a folder found: why it was refused (None when it was not), else its owner, the
    bytes of its files, their digest (relative paths and contents) and its newest change time (epoch seconds);
    ``identity`` is the folder's (device, inode) when it could be opened at all."""

    refusal: str | None
    owner: int = -1
    size: int = 0
    digest: str = ""
    written: float = 0.0
    identity: tuple[int, int] | None = None


class _Refused(Exception):
    """A reason to refuse the whole folder, raised from deep in the walk."""


def _open(parent_fd: int, name: str, flags: int, rel: str) -> int:
    try:
        return os.open(name, flags, dir_fd=parent_fd)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK):  # O_NOFOLLOW met a link
            raise _Refused(f"it holds {rel!r}, which is neither a file nor a folder (a link or a pipe)") from None
        if exc.errno in (errno.ENXIO, errno.EOPNOTSUPP, errno.ENODEV):  # a socket, or a device with no open
            raise _Refused(f"it holds {rel!r}, which is neither a file nor a folder (a socket or a device)") from None
        raise


class _Walk:
    def __init__(self, owner: int, max_bytes: int, into: Path | None):
        self.owner, self.max_bytes, self.into = owner, max_bytes, into
        self.size, self.newest = 0, 0.0
        self.files: list[tuple[str, str, bytes]] = []  # (sort key of the folder, name, content digest)

    def check(self, st: os.stat_result, rel: str) -> None:
        if st.st_uid != self.owner:
            raise _Refused(f"it holds {rel!r}, written by another account (user id {st.st_uid}) than the folder's")

    def folder(self, fd: int, rel: str) -> None:
        if self.into is not None:
            (self.into / rel).mkdir(mode=0o700, exist_ok=True)
        for name in sorted(os.listdir(fd)):
            sub = f"{rel}/{name}" if rel else name
            efd = _open(fd, name, ENTRY_FLAGS, sub)
            try:
                st = os.fstat(efd)
                self.check(st, sub)
                if stat.S_ISDIR(st.st_mode):
                    self.folder(efd, sub)
                elif stat.S_ISREG(st.st_mode):
                    self.file(efd, rel, name, sub)
                else:
                    raise _Refused(f"it holds {sub!r}, which is neither a file nor a folder (a link or a pipe)")
                self.newest = max(self.newest, os.fstat(efd).st_ctime)
            finally:
                os.close(efd)

    def file(self, fd: int, rel: str, name: str, sub: str) -> None:
        h = hashlib.sha256()
        out = None
        if self.into is not None:
            out = os.open(self.into / sub, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            while True:
                block = os.read(fd, BLOCK)
                if not block:
                    break
                self.size += len(block)
                if self.size > self.max_bytes:
                    raise _Refused("too large")
                h.update(block)
                if out is not None:
                    _write_all(out, block)
        finally:
            if out is not None:
                os.close(out)
        # the order of the os.walk this digest was first defined by: folders by path, files by name in each
        self.files.append(("/" + rel if rel else "", name, h.digest()))


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def take(parent_fd: int, name: str, max_bytes: int, into: Path | None = None) -> Taken:
    """Read the folder ``name`` of the open folder ``parent_fd``, all of it by descriptor (see the module):
    refused when it is not a plain folder, when anything in it is neither a plain file nor a plain folder,
    when anything in it belongs to another account than the folder itself, or when its files hold more than
    ``max_bytes``.  With ``into`` (a folder that must not exist yet, in a folder of the reader's own), what is
    read is written there, files ``0600`` and folders ``0700``; on a refusal whatever was written there stays
    for the caller to remove."""
    try:
        fd = os.open(name, DIR_FLAGS, dir_fd=parent_fd)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
            return Taken("it is not a folder (a link or a file)")
        return Taken(f"it could not be read ({exc.strerror})")
    try:
        st = os.fstat(fd)
        walk = _Walk(st.st_uid, max_bytes, into)
        try:
            walk.folder(fd, "")
        except _Refused as why:
            reason = str(why)
            if reason == "too large":
                reason = f"it is larger than {max_bytes // 1000} kB"
            return Taken(reason, st.st_uid, walk.size, identity=(st.st_dev, st.st_ino))
        except OSError as exc:  # gone or unreadable while it was read: nothing to take from it
            return Taken(f"it could not be read ({exc.strerror})", st.st_uid, identity=(st.st_dev, st.st_ino))
        newest = max(walk.newest, os.fstat(fd).st_ctime)
    finally:
        os.close(fd)
    h = hashlib.sha256()
    for key, fname, digest in sorted(walk.files, key=lambda f: (f[0], f[1])):
        rel = f"{key[1:]}/{fname}" if key else fname
        h.update(rel.encode("utf-8", "surrogateescape") + b"\0")
        h.update(digest)
    return Taken(None, st.st_uid, walk.size, h.hexdigest(), newest, (st.st_dev, st.st_ino))


def archive(tar, top: os.PathLike, arcname: str) -> int:
    """Add the folder ``top``, into which other accounts write, to the open ``tarfile`` ``tar`` under
    ``arcname``, never following a link and never waiting on what an entry is (``os.fwalk`` holds each folder
    open, each file is opened as :func:`take` opens it): plain files with the bytes read, folders, links as
    links and pipes as pipes; how many entries it left out (a socket, or one gone while it was read)."""
    import tarfile
    import tempfile

    left_out = 0
    for folder, dirs, files, dfd in os.fwalk(top, follow_symlinks=False):
        rel = os.path.relpath(folder, top)
        base = arcname if rel == "." else f"{arcname}/{rel}"
        info = tarfile.TarInfo(base)
        st = os.fstat(dfd)
        info.type, info.mode, info.mtime, info.uid, info.gid = tarfile.DIRTYPE, st.st_mode & 0o7777, st.st_mtime, st.st_uid, st.st_gid
        tar.addfile(info)
        for name in files + [d for d in dirs if os.path.islink(os.path.join(folder, d))]:
            entry = tarfile.TarInfo(f"{base}/{name}")
            try:
                fd = os.open(name, ENTRY_FLAGS, dir_fd=dfd)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.EMLINK):  # a link: kept as one, never followed
                    try:
                        entry.type, entry.linkname = tarfile.SYMTYPE, os.readlink(name, dir_fd=dfd)
                    except OSError:  # gone meanwhile
                        left_out += 1
                        continue
                    tar.addfile(entry)
                else:  # a socket, or gone meanwhile
                    left_out += 1
                continue
            try:
                st = os.fstat(fd)
                entry.mode, entry.mtime, entry.uid, entry.gid = st.st_mode & 0o7777, st.st_mtime, st.st_uid, st.st_gid
                if stat.S_ISFIFO(st.st_mode):
                    entry.type = tarfile.FIFOTYPE
                    tar.addfile(entry)
                elif stat.S_ISREG(st.st_mode):
                    with tempfile.TemporaryFile() as copy:  # the bytes read, however the file changes meanwhile
                        while block := os.read(fd, BLOCK):
                            copy.write(block)
                        entry.size = copy.tell()
                        copy.seek(0)
                        tar.addfile(entry, copy)
                else:
                    left_out += 1
            finally:
                os.close(fd)
    return left_out
