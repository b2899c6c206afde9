"""What ``nbgrader collect`` takes from the exchange: only what its student wrote, when it was written, as it was read.

nbgrader's exchange takes submissions into ``inbound/``, a folder every account of the class may write into.
``nbgrader submit`` names each submission ``STUDENT+ASSIGNMENT+TIME+RANDOM`` and writes the time into its
``timestamp.txt``, but a student may write a folder there by hand, and nbgrader's own collect believes the
name: it takes a folder written in another student's name (with a warning in its log), the time a folder
claims, and copies by path, following links, as the instructor's account.  So one student could replace
another's submission, claim an earlier time than they submitted at, swap their folder for a link to the
solutions once it had been checked, or block the class's collect with a named pipe.

:class:`CheckedCollect` is nbgrader's ``ExchangeCollect`` that first makes and checks the course's folders of
the exchange (:func:`autograder.adapters.exchange_folders.secure`: a course folder another account made is
refused), then reads each inbound folder once, by file descriptor, into a snapshot of its own
(:func:`autograder.values.fdcopy.take`), and refuses it, with one warning line saying why:

* when it is not a plain folder of plain files and folders (a link, a named pipe, a socket), when its name
  cannot be a student id (the one rule, :func:`check_id`) or its time does not read, or when its files hold
  more than nbgrader's ``max_dir_size``;
* when it, or anything in it, was written by another account than the student's (the collector's own and
  root's stand for the instructor; where a student has no account of their own on this machine, as in a
  container where everyone is ``jovyan``, no account of another student of the gradebook may have written
  it); everything in a folder must be its folder's owner's.

What is collected is that snapshot, never the folder again: nbgrader's copy (its ignore patterns, its size
limits) runs on the snapshot, which no student can reach.  A submission counts as handed in when its files
were written (their newest inode change time, which no student can set back, read after their bytes), not
at the time its name claims: a claim more than :data:`CLAIM_WARNING` away from that is said in a warning
naming both.  The collected copy's ``timestamp.txt`` holds that time, and so does the collector's record
outside ``submitted/`` (:func:`autograder.adapters.times.record`), which is what grading reads.

The evidence survives a copy or a restore of the exchange (``tar -xzf`` gives every file a new change
time): each collect, and ``autograder hub backup`` before it archives, records when each inbound folder's
files were written, with a digest of what they hold, in the course's private
``.autograder/exchange_written.json`` (:func:`remember`); a folder that still holds the same files is judged
by the recorded time, and one written into since by its change time.

Everything else is nbgrader's: which submission is the newest (or the newest before the due date), the
ignore patterns, the size limits, the gradebook.  Set in ``nbgrader_config.py`` (``c.ExchangeFactory.collect``).
"""

from __future__ import annotations

import datetime
import json
import os
import pwd
import shutil
import tempfile
import time
from pathlib import Path

from nbgrader.exchange.default.collect import ExchangeCollect

from autograder.adapters import times
from autograder.adapters.exchange import secure_course
from autograder.adapters.exchange_folders import SUBMISSION_MODE
from autograder.adapters.lms_roster import check_id
from autograder.values import course, private
from autograder.values.fdcopy import DIR_FLAGS, Taken, take
from autograder.values.files import write_atomic

CLAIM_WARNING = datetime.timedelta(minutes=2)  # a claim this far from when the files were written is said
REFUSED = datetime.datetime.max  # a refused folder's time: never before a due date (and sorted last)
MAX_KB = 100_000  # nbgrader's default max_dir_size
STALE_SNAPSHOTS = 24 * 3600  # seconds after which a killed collect's snapshots are removed by the next collect


def _utc(epoch: float) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(epoch, datetime.timezone.utc).replace(tzinfo=None)


def _record_path(course_root: os.PathLike) -> Path:
    return Path(course_root) / ".autograder" / "exchange_written.json"


def _load(course_root: os.PathLike) -> dict:
    try:
        known = json.loads(_record_path(course_root).read_text())
    except (OSError, ValueError):  # none yet, or damaged: no earlier evidence, the change times decide
        return {}
    return known if isinstance(known, dict) else {}


def _save(course_root: os.PathLike, known: dict) -> None:
    write_atomic(_record_path(course_root), json.dumps(known, indent=1, sort_keys=True) + "\n")


def _evidence(known: dict, name: str, taken: Taken) -> datetime.datetime:
    """When the files of the inbound folder ``name`` were written: the time recorded while it holds what it held
    then (a restore moved its change times on), else its newest change time.  Records it in ``known``."""
    written = _utc(taken.written)
    entry = known.get(name)
    if isinstance(entry, dict) and entry.get("digest") == taken.digest:
        try:
            written = min(written, datetime.datetime.fromisoformat(entry["written"]))
        except (KeyError, TypeError, ValueError):  # a damaged entry: the change time stands
            pass
    known[name] = {"written": written.isoformat(), "digest": taken.digest}
    return written


def _open_folder(path: os.PathLike) -> int:
    return os.open(path, DIR_FLAGS)


def close_submission(inbound_fd: int, name: str, taken: Taken) -> bool:
    """Make the submission folder ``name`` (read as ``taken``) its student's alone, as the course's submit makes
    it: nbgrader's own submit makes it ``0777``, so that anyone who learns its name can refill it.  Only after
    its written time is recorded (the change of mode moves the folder's change time on), and only as root, who
    collects it all the same; whether it closed it."""
    if os.geteuid() != 0:
        return False
    try:
        fd = os.open(name, DIR_FLAGS, dir_fd=inbound_fd)
    except OSError:  # gone or replaced meanwhile: nothing to close, the next collect reads it again
        return False
    try:
        info = os.fstat(fd)
        if (info.st_dev, info.st_ino) != taken.identity or not info.st_mode & 0o077:
            return False
        os.fchmod(fd, SUBMISSION_MODE)
        return True
    finally:
        os.close(fd)


def remember(course_root: os.PathLike, inbound: os.PathLike, max_kb: int = MAX_KB) -> tuple[int, int]:
    """Record when each plain submission folder of ``inbound`` (at most ``max_kb``) was written (see the module),
    then close each that other accounts could write into (:func:`close_submission`); how many it recorded and
    how many it closed.  Every folder is read by descriptor: a link or a pipe put there is passed over, never
    followed or waited on."""
    known, taken = _load(course_root), {}
    try:
        fd = _open_folder(inbound)
    except OSError:  # no inbound folder (nothing released yet): nothing to record
        return 0, 0
    try:
        for name in sorted(os.listdir(fd)):
            read = take(fd, name, 1000 * max_kb)
            if read.refusal is None:
                _evidence(known, name, read)
                taken[name] = read
        _save(course_root, known)
        closed = sum(close_submission(fd, name, read) for name, read in taken.items())
    finally:
        os.close(fd)
    return len(taken), closed


def _account(uid: int) -> str | None:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:  # an id with no account name
        return None


class CheckedCollect(ExchangeCollect):
    """nbgrader's collect, taking from ``inbound/`` only what its student wrote, when it was written, as it was
    read (see the module)."""

    def init_src(self):
        for line in private.keep_closed(self.coursedir.root):  # a class's course: nothing of it left open
            self.log.warning(line)
        secure_course(self)
        self._refusals: dict[str, str] = {}
        self._snapshots: dict[str, tuple[Path, datetime.datetime, Taken]] = {}
        # nbgrader's own owner check stats each folder again by path, which a link put there meanwhile can make
        # raise for the whole class; every entry's owner is checked here, on what was read
        self.check_owner = False
        self._known = _load(self.coursedir.root)
        self._students = course.gradebook_students(self.coursedir.db_url)
        staging = Path(self.coursedir.root) / ".autograder" / "collecting"
        staging.mkdir(parents=True, exist_ok=True)
        os.chmod(staging, 0o700)
        for left in staging.iterdir():  # a collect killed mid-run left its snapshots: a day on, nothing reads them
            if time.time() - left.lstat().st_mtime > STALE_SNAPSHOTS:
                shutil.rmtree(left, ignore_errors=True)
        self._staging = Path(tempfile.mkdtemp(dir=staging))
        inbound = os.path.join(self.root, self.coursedir.course_id, "inbound")
        try:
            self._inbound_fd = _open_folder(inbound)
        except OSError as exc:
            self.fail(f"Course not found or not readable: {inbound} ({exc.strerror})")
        try:
            super().init_src()  # reads each folder through _path_to_record, which takes its snapshot
        except BaseException:  # the collect stops here: nothing of its snapshots is kept
            self._clean()
            raise
        try:
            _save(self.coursedir.root, self._known)
        except OSError as exc:  # a course this account cannot write into: the collect itself goes on
            self.log.warning("Could not record when the inbound folders were written (%s: %s): a restored exchange "
                             "would judge them by their new change times", _record_path(self.coursedir.root),
                             exc.strerror)
        else:  # their times recorded: the folders nbgrader's own submit left open are closed
            closed = sum(close_submission(self._inbound_fd, name, taken) for name, (_, _, taken) in self._snapshots.items())
            if closed:
                self.log.warning("Closed %d submission folder(s) that other accounts could read or write into", closed)

    def _clean(self) -> None:
        os.close(self._inbound_fd)
        shutil.rmtree(self._staging, ignore_errors=True)

    def _owner_refusal(self, owner: int, student: str) -> str | None:
        """Why a folder written by the account ``owner`` is not ``student``'s to hand in (None when it is)."""
        if owner in (0, os.geteuid()):
            return None
        writer = _account(owner)
        if writer == student:
            return None
        try:
            pwd.getpwnam(student)
        except KeyError:  # the student has no account here: only another student's account gives it away
            return f"it was written by {writer}, another student" if writer in self._students else None
        return f"it was written by {writer or f'user id {owner}'}, not by {student}"

    def _path_to_record(self, path):
        name = os.path.basename(path)
        try:
            record = super()._path_to_record(path)
        except (ValueError, OverflowError):  # a time in the name that does not read: the folder was not submit's
            record = {"username": name.rsplit("+", 3)[0], "filename": name, "timestamp": None}
            self._refusals[name] = "the time in its name does not read"
        student, claimed = record["username"], record["timestamp"]
        why = self._refusals.get(name) or (f"its name is not a student id ({bad})" if (bad := check_id(student)) else None)
        if not why:
            snapshot = Path(tempfile.mkdtemp(dir=self._staging)) / "taken"
            taken = take(self._inbound_fd, name, 1000 * self.coursedir.max_dir_size, into=snapshot)
            why = taken.refusal or self._owner_refusal(taken.owner, student)
            if why:
                shutil.rmtree(snapshot, ignore_errors=True)
        if why:
            self.log.warning("Not collected: inbound/%s, a submission in the name of %s: %s", name, student, why)
            self._refusals[name] = why
            return {**record, "timestamp": REFUSED}
        written = _evidence(self._known, name, taken)
        if claimed is None or abs(claimed - written) > CLAIM_WARNING:
            self.log.warning("The submission of %s (inbound/%s) claims %s UTC, but its files were written at %s UTC "
                             "(their change time, which no student can set back): it counts as handed in then. If "
                             "its folder was copied or restored since it was last collected or backed up, give the "
                             "real time with autograder grade %s --student %s --submitted-at TIME", student, name,
                             claimed, written, self.coursedir.assignment_id, student)
        self._snapshots[name] = (snapshot, written, taken)
        return {**record, "timestamp": written}

    def _sort_by_timestamp(self, records):
        """Newest first, as nbgrader sorts, and every refused folder after all the others."""
        return sorted(records, key=lambda r: (r["filename"] not in self._refusals, r["timestamp"]), reverse=True)

    def copy_files(self):
        try:
            for record in [r for r in self.src_records if r["filename"] in self._refusals]:
                self.log.warning("Nothing collected for %s: every submission in their name was refused",
                                 record["username"])
            self.src_records = [r for r in self.src_records if r["filename"] not in self._refusals]
            super().copy_files()
        finally:
            self._clean()

    def do_copy(self, src, dest, log=None):
        """Copy the snapshot taken of ``src``, never ``src`` itself, with nbgrader's own copy (its ignore
        patterns and size limits), and record when it was handed in."""
        snapshot, when, _ = self._snapshots[os.path.basename(src)]
        super().do_copy(str(snapshot), dest, log=log)
        # the collector's record, which also writes the time into the copy's timestamp.txt for nbgrader's readers
        student = os.path.basename(os.path.dirname(dest))
        times.record(Path(self.coursedir.root), self.coursedir.assignment_id, student, Path(dest),
                     when.strftime("%Y-%m-%d %H:%M:%S.%f UTC"), times.COLLECTOR)
