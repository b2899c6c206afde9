"""``nbgrader collect`` through the course's configuration takes from the exchange only what each student wrote.

nbgrader's ``inbound/`` is writable by every account of the class, so a student can write a folder there
by hand: in another student's name, claiming an earlier time, holding links to files only the instructor
can read, or named so that it cannot be collected at all.  Real nbgrader, real accounts (made for the
test and removed after it), real files; the collect runs as the instructor (root), as on the class server.
"""

from __future__ import annotations

import datetime as dt
import os
import pwd
import shutil
import subprocess
import time
import uuid
from pathlib import Path

import attacks
import pytest
from support import COURSE_ID, fixture_course, nbgrader, set_answers

from autograder.adapters import exchange_collect, times

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="makes accounts for two students: needs root")

A = attacks.ASSIGNMENT


def _stamp(when: dt.datetime) -> str:
    return when.strftime("%Y-%m-%d %H:%M:%S.%f UTC")


@pytest.fixture
def accounts():
    tag = uuid.uuid4().hex[:6]
    names = [f"xc{tag}a", f"xc{tag}b"]
    for name in names:
        subprocess.run(["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", name], check=True)
    try:
        yield names
    finally:
        for name in names:
            subprocess.run(["userdel", name], capture_output=True)


def test_a_collect_takes_only_what_each_student_wrote_when_it_was_written(tmp_path, accounts):
    ana, ben = accounts
    course = fixture_course(tmp_path / "course")
    exchange = tmp_path / "exchange"
    exchange.mkdir(mode=0o777)
    exchange.chmod(0o777)
    ex = f"--Exchange.root={exchange}"
    for who in (ana, ben):
        assert nbgrader("db", "student", "add", who, cwd=course).returncode == 0
    out = nbgrader("release_assignment", A, ex, cwd=course)
    assert out.returncode == 0, out.stdout + out.stderr

    # each student fetches and submits with nbgrader's own commands; the folder is theirs, as their account wrote it
    inbound = exchange / COURSE_ID / "inbound"
    notebooks = {}
    for who, answer in ((ana, attacks.CORRECT_1 + "\n# ana's own"), (ben, attacks.CORRECT_1 + "\n# ben's own")):
        home = tmp_path / "home" / who
        (home / "work").mkdir(parents=True)
        assert nbgrader("fetch_assignment", A, "--course", COURSE_ID, ex, cwd=home / "work", user=who,
                        home=home).returncode == 0
        nb = home / "work" / A / f"{A}.ipynb"
        set_answers(nb, attacks.answers(answer, attacks.CORRECT_2))
        out = nbgrader("submit", A, "--course", COURSE_ID, f"--student={who}", ex, cwd=home / "work", user=who,
                       home=home)
        assert out.returncode == 0, out.stdout + out.stderr
        notebooks[who] = nb
        uid = pwd.getpwnam(who).pw_uid
        for folder in inbound.glob(f"{who}+{A}+*"):
            for p in [folder, *folder.rglob("*")]:
                os.lchown(p, uid, uid)
    honest = {who: next(inbound.glob(f"{who}+{A}+*")).name for who in (ana, ben)}
    now = dt.datetime.now(dt.timezone.utc)

    def by_ana(student: str, claimed: str, marker: str, extra=None) -> Path:
        """A folder ana writes into inbound by hand, in ``student``'s name, claiming ``claimed``."""
        folder = inbound / f"{student}+{A}+{claimed}+{uuid.uuid4().hex[:8]}"
        folder.mkdir()
        nb = folder / f"{A}.ipynb"
        shutil.copy(notebooks[ana], nb)
        set_answers(nb, attacks.answers(attacks.WRONG_1 + f"\n# {marker}", attacks.CORRECT_2))
        (folder / "timestamp.txt").write_text(claimed)
        if extra:
            extra(folder)
        uid = pwd.getpwnam(ana).pw_uid
        for p in [folder, *folder.rglob("*")]:
            os.lchown(p, uid, uid)
        return folder

    def link_to_ben(folder: Path) -> None:
        (folder / f"{A}.ipynb").unlink()
        (folder / f"{A}.ipynb").symlink_to(inbound / honest[ben] / f"{A}.ipynb")

    later = _stamp(now + dt.timedelta(hours=1))
    by_ana(ben, later, "ana in ben's name")                                  # another student's name
    early = by_ana(ana, _stamp(now - dt.timedelta(days=2)), "ana early")     # an earlier time than it was written
    by_ana(ana, _stamp(now + dt.timedelta(hours=2)), "ana's link", link_to_ben)  # a link to a file she cannot read
    by_ana(ana, _stamp(now + dt.timedelta(hours=3)), "ana's pipe", lambda f: os.mkfifo(f / "pipe.ipynb"))
    by_ana("", later, "no one's")                                            # a name that is no student's
    by_ana("..", later, "outside submitted/")  # (a hidden name: nbgrader's own search never sees it)
    by_ana(ana, "not-a-time", "no time")                                     # a time that does not read
    (inbound / f"{ana}+{A}+{_stamp(now + dt.timedelta(hours=4))}+ffff").symlink_to(inbound / honest[ben])
    for p in inbound.iterdir():
        if p.is_symlink():
            os.lchown(p, pwd.getpwnam(ana).pw_uid, pwd.getpwnam(ana).pw_uid)

    out = nbgrader("collect", A, ex, cwd=course)
    assert out.returncode == 0, out.stdout + out.stderr
    log = out.stdout + out.stderr
    assert f"a submission in the name of {ben}: it was written by {ana}, not by {ben}" in log, log
    assert "which is neither a file nor a folder (a link or a pipe)" in log, log
    assert "it is not a folder (a link or a file)" in log, log
    assert "its name is not a student id (it is empty)" in log, log
    assert "the time in its name does not read" in log, log
    assert f"The submission of {ana} (inbound/{early.name}) claims" in log, log

    # ben's own submission stands; ana's is the one she wrote last, at the time she wrote it, not the one claimed
    submitted = course / "submitted"
    assert "# ben's own" in (submitted / ben / A / f"{A}.ipynb").read_text()
    assert "# ana early" in (submitted / ana / A / f"{A}.ipynb").read_text()
    assert not (course / A).exists() and sorted(p.name for p in submitted.iterdir()) == sorted([ana, ben])
    when, source = times.submission_time(course, A, ana, submitted / ana / A)
    from nbgrader.utils import parse_utc

    assert source == times.COLLECTOR and abs(parse_utc(when) - now.replace(tzinfo=None)) < dt.timedelta(minutes=5), when
    when, _ = times.submission_time(course, A, ben, submitted / ben / A)
    assert parse_utc(when) <= now.replace(tzinfo=None) + dt.timedelta(seconds=1), when  # an honest claim is kept

    # a restore of the exchange (tar -xzf) gives every file a new change time: a folder that holds what it held
    # when a collect or a backup recorded it keeps the time recorded, so nobody turns late
    assert exchange_collect.remember(course, inbound)[0] >= 3
    stamp_before = (submitted / ana / A / "timestamp.txt").read_text()
    time.sleep(1.5)
    archive = tmp_path / "exchange.tar.gz"
    subprocess.run(["tar", "-czf", str(archive), "-C", str(exchange), "."], check=True)
    shutil.rmtree(exchange / COURSE_ID)
    subprocess.run(["tar", "-xzf", str(archive), "-C", str(exchange)], check=True)
    assert os.lstat(early).st_ctime > now.timestamp() + 1  # the restore moved its change time on
    shutil.rmtree(submitted / ana)
    out = nbgrader("collect", A, ex, cwd=course)
    assert out.returncode == 0, out.stdout + out.stderr
    assert (submitted / ana / A / "timestamp.txt").read_text() == stamp_before
