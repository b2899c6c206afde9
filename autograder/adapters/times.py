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


def record(root: Path, assignment: str, student: str, folder: Path, when: str, source: str) -> None:
    """Keep ``when`` (a time nbgrader's parser reads) as the time the submission now in ``folder`` came in."""
    write_atomic(_record_path(root, assignment, student),
                 json.dumps({"time": when, "source": source, "notebooks": _notebooks(folder)}, indent=1))


def recorded(root: Path, assignment: str, student: str, folder: Path) -> tuple[str, str] | None:
    """The instructor-side record of the submission now in ``folder``: (time, source), or None when there is
    none, or a notebook it was made for is no longer there as it was."""
    try:
        data = json.loads(_record_path(root, assignment, student).read_text())
    except (OSError, ValueError):  # no record (or a damaged one): no evidence from it
        return None
    if not isinstance(data, dict) or data.get("source") not in (INSTRUCTOR, COLLECTOR):
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
    stamp = Path(folder) / "timestamp.txt"
    try:
        if stamp.is_file() and not stamp.is_symlink() and stamp.stat().st_size < 200:
            text = outputs.safe_text(stamp.read_text(errors="replace"), 100).strip()
            if text:
                return text, NBGRADER
    except OSError:  # unreadable: as if absent
        pass
    nb = next((p for p in sorted(Path(folder).glob("*.ipynb")) if p.is_file() and not p.is_symlink()), None)
    if nb is not None:
        return datetime.fromtimestamp(nb.stat().st_mtime, timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f %Z"), FILE_TIME
    return None, "none"
