"""Who owns each folder of nbgrader's exchange on a machine shared with students, and who reads each copy.

nbgrader's filesystem exchange is made for accounts that trust each other: its root is ``0777`` without the
sticky bit, ``inbound/`` is not sticky, each submission folder is ``0777`` ("hidden from other users by the
timestamp"), and whatever is released is readable by every account.  On a class server every student
account may be hostile, so the course's part of the exchange is the instructor's by construction::

    EXCHANGE/                      1777: any account may add a folder, none may move or remove another's
      COURSE/                      0755, the instructor's
        outbound/                  0755: the releases, for every account to read
          ASSIGNMENT/.variants/    0711: nobody lists whose copies are there
            STUDENT/               0750, root's, in STUDENT's own group (files 0640): for that student alone
        inbound/                   3733, sticky: each student makes folders of their own there, and cannot
                                   list, move or remove another's; a submission folder is its student's (0700:
                                   closed by the student's submit, and by the collect, once it has recorded
                                   when the folder's files were written)
        feedback/                  0711: nobody lists it; each page root's, in its student's own group (0640)

:func:`secure` makes this and puts it right (``hub start``, and every release, collect and feedback release
before it touches the exchange), and refuses, in one line, a course folder that another account made or put
in place; :func:`student_problem` is what a student's fetch and submit check before they trust the folders;
:func:`for_student` makes a copy readable by one student alone.  A student's "own group" is the group
``useradd --user-group`` made with their account: one that no other account is in.  Where there is none
(a student with no account here, or a release not made as root), a copy stays readable by every account,
and the release says so.
"""

from __future__ import annotations

import grp
import os
import pwd
import stat
import time
from pathlib import Path

from autograder.values.errors import UserError

VARIANTS = ".variants"  # each student's copy of a release, under outbound/ASSIGNMENT/
# the mode each course folder must have, and the bits it must not have beyond it
MODES = {"": 0o755, "outbound": 0o755, "inbound": 0o3733, "feedback": 0o711}
ROOT_MODE = 0o1777
SUBMISSION_MODE = 0o700  # a submission folder in inbound/, where the collector is root


class ExchangeNotTrusted(UserError):
    """A course folder of the exchange that the instructor does not own: nothing is released or collected.
    ``said`` holds what :func:`secure` put right before it found it."""

    def __init__(self, message: str, said: list[str] | None = None) -> None:
        super().__init__(message)
        self.said = list(said or [])


def own_group(student: str) -> int | None:
    """The group only ``student``'s account is in (the one ``useradd --user-group`` made), or None."""
    try:
        account = pwd.getpwnam(student)
        group = grp.getgrgid(account.pw_gid)
    except KeyError:  # no such account or group here
        return None
    if group.gr_name != student or any(m != student for m in group.gr_mem):
        return None
    if any(p.pw_gid == group.gr_gid and p.pw_name != student for p in pwd.getpwall()):
        return None
    return group.gr_gid


def for_student(path: Path, student: str) -> bool:
    """Make ``path`` (a file, or a folder and all in it, written by this process) readable by ``student`` alone:
    root's, in the student's own group, folders ``0750`` and files ``0640``.  Whether it could (root only, and
    a student with a group of their own)."""
    gid = own_group(student) if os.geteuid() == 0 else None
    if gid is None:
        return False
    todo = [Path(path)]
    while todo:
        p = todo.pop()
        info = os.lstat(p)
        if stat.S_ISLNK(info.st_mode):
            continue
        os.lchown(p, 0, gid)
        if stat.S_ISDIR(info.st_mode):
            os.chmod(p, 0o750)
            todo.extend(p.iterdir())
        else:
            os.chmod(p, 0o640)
    return True


def _owner_name(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:  # an id with no account name
        return f"user id {uid}"


def secure(root: Path, course_id: str, move_aside: bool = False) -> list[str]:
    """Make the course's folders of the exchange at ``root`` as the module says, owned by this account, and put
    their modes right; return a line for each change.  A course folder that is a link, or another account's, is
    refused with :class:`ExchangeNotTrusted`, or with ``move_aside`` (``hub start``, as root) renamed aside,
    kept for the instructor to look into, and made anew."""
    me = os.geteuid()
    said: list[str] = []
    root = Path(root)
    if not root.is_dir():
        root.mkdir(parents=True)
        os.chmod(root, ROOT_MODE)
    info = os.stat(root)
    if info.st_mode & 0o002 and not info.st_mode & stat.S_ISVTX:
        if info.st_uid != me and me != 0:
            raise ExchangeNotTrusted(f"the exchange {root} lets any account move the course's folder away (it is "
                                     f"world-writable without the sticky bit): chmod +t {root}, as its owner", said)
        os.chmod(root, (info.st_mode & 0o7777) | stat.S_ISVTX)
        said.append(f"the exchange {root} let any account move the course's folder away: it is sticky now (chmod +t)")
    course = root / course_id
    for sub in MODES:
        path = course / sub if sub else course
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            path.mkdir(mode=0o700)
            os.chmod(path, MODES[sub])
            continue
        foreign = stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode) or info.st_uid not in (me, 0)
        if foreign:
            what = "a link" if stat.S_ISLNK(info.st_mode) else \
                "not a folder" if not stat.S_ISDIR(info.st_mode) else f"made by {_owner_name(info.st_uid)}"
            if not (move_aside and me == 0):
                raise ExchangeNotTrusted(
                    f"the exchange's {path} is {what}, not by this account: another account may have put it there to "
                    f"take the class's submissions; move it aside (mv {path} {path}.suspect), then run this again", said)
            aside = path.with_name(f"{path.name}.suspect-{time.strftime('%Y%m%d-%H%M%S')}")
            os.rename(path, aside)
            said.append(f"the exchange's {path} was {what}: moved aside to {aside} (look into it) and made anew")
            path.mkdir(mode=0o700)
            os.chmod(path, MODES[sub])
            continue
        if info.st_mode & 0o7777 != MODES[sub]:
            os.chmod(path, MODES[sub])
            said.append(f"the exchange's {path} was {oct(info.st_mode & 0o7777)[2:]}: now {oct(MODES[sub])[2:]}")
    said += _close_variants(course / "outbound")
    return said


def _close_variants(outbound: Path) -> list[str]:
    """Each released student's copy readable by that student alone (a release made before this rule held)."""
    opened = []
    for base in outbound.glob(f"*/{VARIANTS}"):
        if base.is_symlink() or not base.is_dir():
            continue
        if os.stat(base).st_mode & 0o777 != 0o711:
            os.chmod(base, 0o711)
        for mine in base.iterdir():
            info = os.lstat(mine)
            if stat.S_ISDIR(info.st_mode) and info.st_mode & 0o007 and for_student(mine, mine.name):
                opened.append(mine.name)
    return [f"made {len(opened)} released copies readable by their own student alone"] if opened else []


def student_problem(root: Path, course_id: str) -> str | None:
    """Why a student should not trust the course's folders of the exchange at ``root`` (None when they may):
    a course folder that is a link, or not the course folder's owner's, an ``inbound/`` others could list or
    that is not sticky, or an exchange that lets any account move the course's folder away."""
    root = Path(root)
    try:
        top = os.stat(root)
        course = os.lstat(root / course_id)
    except OSError:  # not there: nbgrader's own checks say so in its words
        return None
    if top.st_mode & 0o002 and not top.st_mode & stat.S_ISVTX:
        return (f"the exchange {root} lets any account move the course's folder away: ask your instructor to make "
                f"it sticky (chmod +t {root}) before you fetch or submit")
    for sub in ("", "outbound", "inbound", "feedback"):
        path = root / course_id / sub if sub else root / course_id
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            continue
        if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode) or info.st_uid != course.st_uid:
            return (f"the exchange's {path} is not the course's own (a link, or another account's folder): "
                    "tell your instructor, and do not fetch or submit until it is put right")
        if sub == "inbound" and (info.st_mode & 0o004 or not info.st_mode & stat.S_ISVTX):
            return (f"the exchange's {path} lets other accounts see or move submissions: tell your instructor "
                    "(autograder hub start, or any release, puts it right)")
    return None
