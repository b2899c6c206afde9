"""What ``nbgrader collect`` takes from the exchange: only what its student wrote, at the time it was written.

nbgrader's exchange takes submissions into ``inbound/``, a folder every account of the class may write
into. ``nbgrader submit`` names each submission ``STUDENT+ASSIGNMENT+TIME+RANDOM`` and writes the time
into its ``timestamp.txt``, but a student may write a folder there by hand, and nbgrader's own collect
believes the name: it takes a folder written in another student's name (with a warning in its log), the
time a folder claims, and follows links inside it as the instructor's account.  So one student could
replace another's submission, claim an earlier time than they submitted at, or collect, under their own
name, any file the instructor can read.

:class:`CheckedCollect` is nbgrader's ``ExchangeCollect`` that, for each inbound folder:

* refuses it, with one warning line saying why, when it is not a plain folder of plain files and folders
  (a link, a named pipe), when its name cannot be a student id (the one rule, :func:`check_id`), when it is larger than nbgrader's
  ``max_dir_size``, or when it was written by another account than the student's (the collector's own and
  root's stand for the instructor; where a student has no account of their own on this machine, as in a
  container where everyone is ``jovyan``, no account of another student of the gradebook may have written
  it);
* judges it by the time its files were written (their inode change time, which no student can set back)
  where the time it claims is more than :data:`SLACK` earlier, or later, than that; the collected copy's
  ``timestamp.txt`` then holds the written time, with a warning naming both.  An honest ``nbgrader submit``
  claims the moment it starts and writes its files within seconds.

The evidence survives a copy or a restore of the exchange (``tar -xzf`` gives every file a new change
time): each collect, and ``autograder hub backup`` before it archives, records when each inbound folder's
files were written, with a digest of what they hold, in the course's ``.autograder/exchange_written.json``
(:func:`remember`); a folder that still holds the same files is judged by the recorded time, and one
written into since by its change time.

Everything else is nbgrader's: which submission is the newest (or the newest before the due date), the
ignore patterns, the size limits, the gradebook.  Set in ``nbgrader_config.py`` (``c.ExchangeFactory.collect``).
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import pwd
import stat
from dataclasses import dataclass
from pathlib import Path

from nbgrader.exchange.default.collect import ExchangeCollect

from autograder.adapters.roster import check_id
from autograder.values import course
from autograder.values.files import write_atomic

SLACK = datetime.timedelta(minutes=2)  # how far an honest claim may lie from when its files were written
REFUSED = datetime.datetime.max  # a refused folder's time: never before a due date (and sorted last)


@dataclass(frozen=True)
class _Folder:
    """What one walk of an inbound folder finds."""

    odd: str | None  # the first entry that is neither a plain file nor a folder (a link, a pipe, a device)
    size: int  # the bytes of its files
    written: datetime.datetime  # when anything in it was last written or changed: the newest inode change time, UTC


def _scan(path: str) -> _Folder:
    """The folder at ``path``, walked once without following links (a link is an odd entry)."""
    newest, size = os.lstat(path).st_ctime, 0
    for top, dirs, files in os.walk(path):
        for name in dirs + files:
            info = os.lstat(os.path.join(top, name))
            newest = max(newest, info.st_ctime)
            if stat.S_ISREG(info.st_mode):
                size += info.st_size
            elif not stat.S_ISDIR(info.st_mode):
                return _Folder(os.path.relpath(os.path.join(top, name), path), size, datetime.datetime.min)
    return _Folder(None, size, datetime.datetime.fromtimestamp(newest, datetime.timezone.utc).replace(tzinfo=None))


def _digest(path: str) -> str:
    """What the folder at ``path`` holds: its files' relative paths and contents."""
    h = hashlib.sha256()
    for top, dirs, files in sorted(os.walk(path)):
        for name in sorted(files):
            full = os.path.join(top, name)
            h.update(os.path.relpath(full, path).encode("utf-8", "surrogateescape") + b"\0")
            with open(full, "rb") as f:
                h.update(hashlib.sha256(f.read()).digest())
    return h.hexdigest()


def _record_path(course_root: os.PathLike) -> Path:
    return Path(course_root) / ".autograder" / "exchange_written.json"


def _load(course_root: os.PathLike) -> dict:
    try:
        known = json.loads(_record_path(course_root).read_text())
    except (OSError, ValueError):  # none yet, or damaged: no earlier evidence, the change times decide
        return {}
    return known if isinstance(known, dict) else {}


def _evidence(known: dict, name: str, path: str, written: datetime.datetime) -> datetime.datetime:
    """When the files of the inbound folder ``name`` were written: the time recorded while it holds what it held
    then (a restore moved its change times on), else ``written``, its newest change time.  Records it in ``known``."""
    digest = _digest(path)
    entry = known.get(name)
    if isinstance(entry, dict) and entry.get("digest") == digest:
        try:
            written = min(written, datetime.datetime.fromisoformat(entry["written"]))
        except (KeyError, TypeError, ValueError):  # a damaged entry: the change time stands
            pass
    known[name] = {"written": written.isoformat(), "digest": digest}
    return written


def remember(course_root: os.PathLike, inbound: os.PathLike, max_kb: int = 100_000) -> int:
    """Record when each plain submission folder of ``inbound`` (at most ``max_kb``, nbgrader's default
    ``max_dir_size``) was written (see the module); how many."""
    known, n = _load(course_root), 0
    for entry in sorted(Path(inbound).iterdir()) if Path(inbound).is_dir() else []:
        try:
            if entry.is_symlink() or not entry.is_dir():
                continue
            folder = _scan(str(entry))
            if folder.odd is None and folder.size <= 1000 * max_kb:
                _evidence(known, entry.name, str(entry), folder.written)
                n += 1
        except OSError:  # gone or unreadable meanwhile: nothing to record of it
            continue
    _save(course_root, known)
    return n


def _save(course_root: os.PathLike, known: dict) -> None:
    write_atomic(_record_path(course_root), json.dumps(known, indent=1, sort_keys=True) + "\n")


def _account(uid: int) -> str | None:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:  # an id with no account name
        return None


class CheckedCollect(ExchangeCollect):
    """nbgrader's collect, taking from ``inbound/`` only what its student wrote, when it was written (see the module)."""

    def init_src(self):
        self._refusals: dict[str, str] = {}
        self._written: dict[str, datetime.datetime] = {}
        self._known = _load(self.coursedir.root)
        self._students = course.gradebook_students(self.coursedir.db_url)
        super().init_src()  # reads each folder through _path_to_record, which records its evidence
        try:
            _save(self.coursedir.root, self._known)
        except OSError as exc:  # a course this account cannot write into: the collect itself goes on
            self.log.warning("Could not record when the inbound folders were written (%s: %s): a restored exchange "
                             "would judge them by their new change times", _record_path(self.coursedir.root),
                             exc.strerror)

    def _refusal(self, path: str, student: str) -> tuple[str | None, _Folder | None]:
        """Why the inbound folder at ``path``, named for ``student``, is not theirs to hand in (None when it is),
        and what its walk found."""
        bad_id = check_id(student)
        if bad_id:
            return f"its name is not a student id ({bad_id})", None
        info = os.lstat(path)
        if not stat.S_ISDIR(info.st_mode):
            return "it is not a folder (a link or a file)", None
        folder = _scan(path)
        if folder.odd is not None:
            return f"it holds {folder.odd!r}, which is neither a file nor a folder (a link or a pipe)", folder
        if folder.size > 1000 * self.coursedir.max_dir_size:
            return f"it is larger than max_dir_size ({self.coursedir.max_dir_size} kB)", folder
        owner = info.st_uid
        if owner in (0, os.geteuid()):
            return None, folder
        writer = _account(owner)
        if writer == student:
            return None, folder
        try:
            pwd.getpwnam(student)
        except KeyError:  # the student has no account here: only another student's account gives it away
            return (f"it was written by {writer}, another student" if writer in self._students else None), folder
        return f"it was written by {writer or f'user id {owner}'}, not by {student}", folder

    def _path_to_record(self, path):
        name = os.path.basename(path)
        try:
            record = super()._path_to_record(path)
        except (ValueError, OverflowError):  # a time in the name that does not read: the folder was not submit's
            record = {"username": name.rsplit("+", 3)[0], "filename": name, "timestamp": None}
            self._refusals[name] = "the time in its name does not read"
        student, claimed = record["username"], record["timestamp"]
        try:
            why = self._refusals.get(name)
            if not why:
                why, folder = self._refusal(path, student)
            written = None if why else _evidence(self._known, name, path, folder.written)
        except OSError as exc:  # gone or unreadable while it was read: nothing to collect from it
            why, written = f"it could not be read ({exc.strerror})", None
        if why:
            self.log.warning("Not collected: inbound/%s, a submission in the name of %s: %s", name, student, why)
            self._refusals[name] = why
            return {**record, "timestamp": REFUSED}
        if claimed is None or abs(claimed - written) > SLACK:
            self.log.warning("The submission of %s (inbound/%s) claims %s UTC, but its files were written at %s UTC "
                             "(their change time, which no student can set back): it counts as handed in then. If "
                             "its folder was copied or restored since it was last collected or backed up, give the "
                             "real time with autograder grade %s --student %s --submitted-at TIME", student, name,
                             claimed, written, self.coursedir.assignment_id, student)
            record = {**record, "timestamp": written}
        self._written[name] = record["timestamp"]
        return record

    def _sort_by_timestamp(self, records):
        """Newest first, as nbgrader sorts, and every refused folder after all the others."""
        return sorted(records, key=lambda r: (r["filename"] not in self._refusals, r["timestamp"]), reverse=True)

    def copy_files(self):
        for record in [r for r in self.src_records if r["filename"] in self._refusals]:
            self.log.warning("Nothing collected for %s: every submission in their name was refused", record["username"])
        self.src_records = [r for r in self.src_records if r["filename"] not in self._refusals]
        super().copy_files()

    def do_copy(self, src, dest, log=None):
        super().do_copy(src, dest, log=log)
        when = self._written.get(os.path.basename(src))
        if when is not None:  # the time this submission is judged by, in the collected copy nbgrader reads
            with open(os.path.join(dest, "timestamp.txt"), "w") as fh:
                fh.write(when.strftime("%Y-%m-%d %H:%M:%S.%f UTC"))
