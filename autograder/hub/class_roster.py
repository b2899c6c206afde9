"""The class roster of a class server, and the accounts it makes (an LMS roster, ``lms_id,student_id``, is another
file: :mod:`autograder.values.rosters` tells them apart).

A roster is a CSV file with a header and the columns ``username`` and ``role`` (``instructor`` or
``student``), and optionally nbgrader's ``first_name``, ``last_name`` and ``email`` (which the
gradebook and the formgrader show); other columns are ignored.  Every person gets a local account of that
name, made on the first start and kept afterwards (a late roster adds accounts; nothing is removed).  A
new account gets a random first password, written to the class's ``initial-passwords.csv`` (readable by
root alone) for the instructor to hand out; an account that exists already keeps its password.  Local
accounts are what JupyterHub's own PAM authenticator checks, and what gives each person's server, files
and processes their own user id on the machine.
"""

from __future__ import annotations

import csv
import pwd
import re
import secrets
import subprocess
from dataclasses import dataclass
from pathlib import Path

from autograder.values import rosters
from autograder.values.errors import UserError

ROLES = ("instructor", "student")
NAME = re.compile(r"^[a-z_][a-z0-9_-]{0,31}$")  # what useradd takes everywhere (no dots, no capitals)
FIRST_USER_UID = 1000  # below it: the machine's own accounts, never a class member


@dataclass(frozen=True)
class Member:
    username: str
    role: str
    first_name: str = ""
    last_name: str = ""
    email: str = ""


def read_roster(path: Path) -> list[Member]:
    """The members of a roster file, checked: one clear line for the first thing wrong."""
    path = Path(path)
    if not path.is_file():
        raise UserError(f"no roster file {path}: give a CSV with the columns username,role "
                        "(role: instructor or student)")
    with open(path, newline="", encoding="utf-8-sig") as f:
        reader = csv.DictReader(f)
        rows = list(reader)
    if rosters.kind(list(reader.fieldnames or [])) == rosters.LMS:
        raise UserError(rosters.wrong_roster(str(path), rosters.CLASS))
    if not rows or not {"username", "role"} <= {k.strip().lower() for k in rows[0] if k}:
        raise UserError(f"{path}: the class roster needs a header with the columns username and role")
    members: dict[str, Member] = {}
    for line, row in enumerate(rows, start=2):
        row = {(k or "").strip().lower(): (v or "").strip() for k, v in row.items()}
        name, role = row["username"], row["role"].lower()
        if not name and not role:
            continue
        if not NAME.match(name):
            raise UserError(f"{path}:{line}: {name!r} is not a user name this machine can have (lower-case "
                            "letters, digits, - and _, starting with a letter, at most 32)")
        if role not in ROLES:
            raise UserError(f"{path}:{line}: role {role!r} of {name} must be instructor or student")
        if name in members and members[name].role != role:
            raise UserError(f"{path}:{line}: {name} is listed twice with different roles")
        members[name] = Member(name, role, row.get("first_name", "")[:100], row.get("last_name", "")[:100],
                               row.get("email", "")[:200])
    if not any(m.role == "instructor" for m in members.values()):
        raise UserError(f"{path}: the roster names no instructor (role instructor): nobody could open the formgrader")
    return list(members.values())


def _uid(name: str) -> int | None:
    try:
        return pwd.getpwnam(name).pw_uid
    except KeyError:
        return None


def check_accounts(members: list[Member]) -> None:
    """Refuse a roster that names one of the machine's own accounts (root, a service)."""
    taken = [m.username for m in members if (uid := _uid(m.username)) is not None and uid < FIRST_USER_UID]
    if taken:
        raise UserError(f"the roster names accounts of the machine itself ({', '.join(taken)}): rename them")


def make_accounts(members: list[Member], passwords: Path) -> list[str]:
    """Make the accounts the machine lacks (home folder, own group, a random first password appended to
    ``passwords``); return their names.  Existing accounts are left as they are."""
    check_accounts(members)
    made = []
    for m in members:
        if _uid(m.username) is not None:
            continue
        subprocess.run(["useradd", "--create-home", "--user-group", "--shell", "/bin/bash", m.username],
                       check=True, capture_output=True)
        password = secrets.token_urlsafe(12)
        subprocess.run(["chpasswd"], input=f"{m.username}:{password}\n", text=True, check=True,
                       capture_output=True)
        new = not passwords.exists()
        passwords.touch(mode=0o600)
        passwords.chmod(0o600)
        with open(passwords, "a", newline="") as f:
            w = csv.writer(f)
            if new:
                w.writerow(["username", "role", "first_password"])
            w.writerow([m.username, m.role, password])
        made.append(m.username)
    return made
