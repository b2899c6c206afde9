"""What of a course no student may read, kept closed whenever it is made and by whichever command makes it.

On a class server every student has an account on the machine that holds the course, and the course's
grading state (the solutions, the submissions, the autograded notebooks with their hidden tests, the
feedback before it is released, the grader's records, the gradebook, exports and reports) is made over the
whole term, by ``autograder`` commands, by nbgrader's own commands and by the formgrader's buttons, mostly
as root.  Closing what exists once, when the class starts, leaves everything made later open to every
account (root's umask is ``022``, and nbgrader makes its autograded files ``0444``).  So the course is
closed by construction:

* ``autograder hub start`` marks the course as a class's (:func:`mark`) and makes each of
  :data:`PRIVATE_FOLDERS` before anything is written there, closed (``0700``): whatever any command writes
  below them later, whatever its mode, is out of a student's reach;
* every command of ``autograder`` run on a marked course, nbgrader's own commands there (the course's
  ``nbgrader_config.py``), and the formgrader service (its command) run with umask ``077``
  (:func:`guard`), so that a file made beside them (an export, the gradebook) is the instructor's alone;
* each of those commands checks again and says, in one line, what it closed (:func:`close`).
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

# folders of the course no student may read: the solutions, the grading state, what the collect downloads
PRIVATE_FOLDERS = ("solutions", "source", "submitted", "autograded", "feedback", ".autograder", "downloaded",
                   "reports")
# ... made by hub start before anything is written there (solutions/ exists; source/ is not this course's)
MADE_FOLDERS = ("submitted", "autograded", "feedback", ".autograder", "downloaded", "reports")
# files of the course no student may read (the gradebook's journal follows the gradebook's mode)
PRIVATE_FILES = ("gradebook.db", "nbgrader_config.py")
PRIVATE_PATTERNS = ("*.csv",)  # an export, a roster with names and emails, at the top of the course
UMASK = 0o077


def _marker(root: Path) -> Path:
    return Path(root) / ".autograder" / "class.json"


def mark(root: Path, class_dir: Path) -> None:
    """Record that the course at ``root`` serves the class whose state is in ``class_dir``."""
    marker = _marker(root)
    marker.parent.mkdir(parents=True, exist_ok=True)
    os.chmod(marker.parent, 0o700)
    text = json.dumps({"class_dir": str(class_dir)}, indent=1) + "\n"
    if not marker.is_file() or marker.read_text() != text:
        marker.write_text(text)
    os.chmod(marker, 0o600)


def is_class_course(root: Path) -> bool:
    """Whether ``autograder hub start`` made the course at ``root`` a class's."""
    return _marker(root).is_file()


def guard(root: os.PathLike | None) -> bool:
    """On a class's course, make this process write with umask ``077`` from now on; whether it did."""
    if root is None or not is_class_course(Path(root)):
        return False
    os.umask(UMASK)
    return True


def close(root: Path, make: bool = False) -> list[str]:
    """Close what :data:`PRIVATE_FOLDERS` and :data:`PRIVATE_FILES` name in the course at ``root`` (making each of
    :data:`MADE_FOLDERS` first, with ``make``) open to other accounts;
    return one line for each it closed.  Files matching :data:`PRIVATE_PATTERNS` at the top of the course (an
    export, a roster) are closed too."""
    said = []
    if make:
        for name in MADE_FOLDERS:
            p = Path(root) / name
            if not p.exists() and not p.is_symlink():
                p.mkdir(mode=0o700)
    named = [Path(root) / name for name in (*PRIVATE_FOLDERS, *PRIVATE_FILES)]
    for p in [*named, *sorted(q for pattern in PRIVATE_PATTERNS for q in Path(root).glob(pattern))]:
        try:
            info = os.lstat(p)
        except FileNotFoundError:
            continue
        if stat.S_ISLNK(info.st_mode) or not info.st_mode & 0o077:
            continue
        os.chmod(p, info.st_mode & 0o700)
        said.append(f"made {p} private (it was open to other accounts, students included)")
    return said


def keep_closed(root: os.PathLike | None) -> list[str]:
    """What every command on a course does first (the command line, nbgrader's collect and the formgrader's
    *Autograde*): on a class's course, write with umask ``077`` from now on and close what another command left
    open; a line for each it closed (none elsewhere)."""
    return close(Path(root)) if guard(root) else []
