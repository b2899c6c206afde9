"""Submission times, and the evidence a late penalty may rest on: only the instructor's tools write it.

A learner controls every file of their submission folder (nbgrader's ``submit`` copies the whole
folder, hidden files included), so a time read from a file inside it is the learner's word.  The
times a penalty may rest on are therefore kept outside ``submitted/``, in
``.autograder/times/ASSIGNMENT/STUDENT.json``, written by the instructor's own tools alone:
``autograder collect`` (the LMS download's own record of each file), nbgrader's collect from the exchange
as the course configures it (when the submission's files were written,
:mod:`autograder.adapters.exchange_collect`) and ``autograder grade --submitted-at``.  A record carries the digests of the notebooks it vouches for, so it never
applies to another submission that later took their place.

:func:`submission_time` reads, in this order: that record; nbgrader's exchange timestamp
(``timestamp.txt``, written by nbgrader's ``submit`` and carried by its ``collect``); failing both,
the notebook file's modification time, which only says when it was copied and so never decides a
penalty alone (:class:`autograder.adapters.late.Terms`).

nbgrader's own readers (the formgrader's lists, its *Autograde*) take a submission's time from its
``timestamp.txt`` alone, and call a submission autograded only while the gradebook's time is the one that file
says.  So a record here also writes its time into that file (:func:`record`), keeping the text it replaced in
the record; while the record vouches for the submission, both say the same; once it no longer does, the
file's earlier text is what counts, as if the record had never written there, and the gradebook's writer puts
it back (:func:`show_nbgrader`).
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timezone
from pathlib import Path

from autograder.values import outputs
from autograder.values.files import write_atomic

INSTRUCTOR = "instructor (--submitted-at)"
COLLECTOR = "collector"
NBGRADER = "nbgrader's timestamp.txt"
FILE_TIME = "file time in the submissions folder"
TRUSTED = (INSTRUCTOR, COLLECTOR, NBGRADER)  # the sources a late penalty may rest on


def _record_path(root: Path, assignment: str, student: str) -> Path:
    return Path(root) / ".autograder" / "times" / assignment / f"{student}.json"


def _notebooks(folder: Path) -> dict[str, str]:
    """The notebooks of a submission folder, by name: their contents' digests."""
    found = {}
    for p in sorted(Path(folder).glob("*.ipynb")):
        if p.is_file() and not p.is_symlink():
            found[p.name] = hashlib.sha256(p.read_bytes()).hexdigest()
    return found


STAMP = "timestamp.txt"  # nbgrader's record of a submission's time, inside the submission folder


def _read(root: Path, assignment: str, student: str) -> dict | None:
    try:
        data = json.loads(_record_path(root, assignment, student).read_text())
    except (OSError, ValueError):  # no record (or a damaged one): no evidence from it
        return None
    return data if isinstance(data, dict) else None


def _stamp_text(folder: Path) -> str | None:
    """The text of the folder's ``timestamp.txt`` (a plain file of under 200 bytes), or None."""
    stamp = Path(folder) / STAMP
    try:
        if stamp.is_file() and not stamp.is_symlink() and stamp.stat().st_size < 200:
            return stamp.read_text(errors="replace")
    except OSError:  # unreadable: as if absent
        pass
    return None


def _written(data: dict | None) -> dict | None:
    """What a record wrote into the submission's ``timestamp.txt``: {"wrote": text, "replaced": text or None}."""
    found = (data or {}).get("timestamp_txt")
    return found if isinstance(found, dict) and isinstance(found.get("wrote"), str) else None


def _as_found(root: Path, assignment: str, student: str, folder: Path) -> str | None:
    """The folder's ``timestamp.txt`` as it stood before a record of the course wrote there: its text, or, where it
    holds what the record wrote, the text that was there before (None: there was none)."""
    text, written = _stamp_text(folder), _written(_read(root, assignment, student))
    if written is not None and text == written["wrote"]:
        replaced = written.get("replaced")
        return replaced if isinstance(replaced, str) else None
    return text


def record(root: Path, assignment: str, student: str, folder: Path, when: str, source: str) -> None:
    """Keep ``when`` (a time nbgrader's parser reads) as the time the submission now in ``folder`` came in, and
    write it into the folder's ``timestamp.txt``, where nbgrader reads it (see the module)."""
    folder = Path(folder)
    write_atomic(_record_path(root, assignment, student),
                 json.dumps({"time": when, "source": source, "notebooks": _notebooks(folder),
                             "timestamp_txt": {"wrote": when, "replaced": _as_found(root, assignment, student, folder)}},
                            indent=1))
    write_atomic(folder / STAMP, when)


def show_nbgrader(root: Path, assignment: str, student: str, folder: Path) -> None:
    """Make the folder's ``timestamp.txt`` say what the submission is judged by, for nbgrader's readers: the
    record's time while the record vouches for the submission, else what the file said before the record wrote
    there (removed where there was nothing)."""
    folder = Path(folder)
    data, text = _read(root, assignment, student), _stamp_text(folder)
    written, vouched = _written(data), recorded(root, assignment, student, folder)
    if written is None:
        if vouched is not None:  # a record made before records wrote timestamp.txt: written now, the same way
            record(root, assignment, student, folder, *vouched)
        return
    if vouched is not None:
        if text != written["wrote"]:
            write_atomic(folder / STAMP, written["wrote"])
    elif text == written["wrote"]:
        before = written.get("replaced")
        if isinstance(before, str):
            write_atomic(folder / STAMP, before)
        else:
            (folder / STAMP).unlink(missing_ok=True)


def recorded(root: Path, assignment: str, student: str, folder: Path) -> tuple[str, str] | None:
    """The instructor-side record of the submission now in ``folder``: (time, source), or None when there is
    none, or a notebook it was made for is no longer there as it was."""
    data = _read(root, assignment, student)
    if data is None or data.get("source") not in (INSTRUCTOR, COLLECTOR):
        return None
    vouched, now = data.get("notebooks"), _notebooks(folder)
    # every notebook it vouches for is still there as it was: a file added beside them (a scratch notebook
    # the grade does not take) changes nothing, a notebook replaced or gone ends the record's word
    if not isinstance(vouched, dict) or not vouched or any(now.get(k) != v for k, v in vouched.items()) \
            or not isinstance(data.get("time"), str):
        return None
    return data["time"], data["source"]


def submission_time(root: Path, assignment: str, student: str, folder: Path) -> tuple[str | None, str]:
    """When the submission in ``folder`` came in, and where that time comes from (see the module)."""
    found = recorded(root, assignment, student, folder)
    if found is not None:
        return found
    text = _as_found(root, assignment, student, folder)  # never a time a record wrote for another submission
    if text is not None:
        text = outputs.safe_text(text, 100).strip()
        if text:
            return text, NBGRADER
    nb = next((p for p in sorted(Path(folder).glob("*.ipynb")) if p.is_file() and not p.is_symlink()), None)
    if nb is not None:
        return datetime.fromtimestamp(nb.stat().st_mtime, timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f %Z"), FILE_TIME
    return None, "none"
