"""The exchange's folders on a machine shared with students: who owns them, and how a student's folder is read.

``autograder.values.fdcopy.take`` reads a folder another account controls by file descriptor (a link, a pipe,
something another account wrote or too many bytes is refused, never followed or waited on), and its digest is
the one the collect's records were made with.  ``autograder.adapters.exchange_folders`` makes the course's
folders of the exchange the instructor's, refuses a course folder another account made (through nbgrader's own
release, as the formgrader's button runs it), and tells a student's side when not to trust them.
"""

from __future__ import annotations

import hashlib
import os
import stat
import threading
from pathlib import Path

import pytest
from support import COURSE_ID, fixture_course, nbgrader

from autograder.adapters import exchange_folders
from autograder.values import fdcopy

root_only = pytest.mark.skipif(os.geteuid() != 0, reason="gives files to another user id: needs root")
OTHER = 54321  # a user id no account here has


def _old_digest(path: str) -> str:
    """The digest the collect recorded before it read by descriptor (what older records hold)."""
    h = hashlib.sha256()
    for top, dirs, files in sorted(os.walk(path)):
        for name in sorted(files):
            full = os.path.join(top, name)
            h.update(os.path.relpath(full, path).encode("utf-8", "surrogateescape") + b"\0")
            with open(full, "rb") as f:
                h.update(hashlib.sha256(f.read()).digest())
    return h.hexdigest()


def _take(parent: Path, name: str, max_bytes: int = 10_000, into: Path | None = None) -> fdcopy.Taken:
    fd = os.open(parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        return fdcopy.take(fd, name, max_bytes, into)
    finally:
        os.close(fd)


def _folder(tmp_path: Path) -> Path:
    f = tmp_path / "inbound" / "ana+00_fixture+2026-01-01 00:00:00 UTC+x"
    (f / "sub dir").mkdir(parents=True)
    (f / "00_fixture.ipynb").write_text('{"cells": []}')
    (f / "a-b.txt").write_text("1")
    (f / "sub dir" / "data.csv").write_text("x,y\n1,2\n")
    return f


def test_a_take_copies_what_it_read_with_the_digest_records_were_made_with(tmp_path):
    f = _folder(tmp_path)
    snapshot = tmp_path / "snapshot" / "taken"
    snapshot.parent.mkdir()
    taken = _take(f.parent, f.name, into=snapshot)
    assert taken.refusal is None and taken.digest == _old_digest(str(f)), taken
    assert taken.size == sum(p.stat().st_size for p in f.rglob("*") if p.is_file())
    assert taken.written >= max(p.lstat().st_ctime for p in [f, *f.rglob("*")])
    assert (snapshot / "sub dir" / "data.csv").read_text() == "x,y\n1,2\n"
    assert stat.S_IMODE((snapshot / "00_fixture.ipynb").stat().st_mode) == 0o600
    assert stat.S_IMODE((snapshot / "sub dir").stat().st_mode) == 0o700
    assert _take(f.parent, f.name, max_bytes=taken.size - 1).refusal == f"it is larger than {(taken.size - 1) // 1000} kB"


@pytest.mark.parametrize("plant", ["link_file", "link_folder", "pipe", "top_link"])
def test_a_take_refuses_a_link_or_a_pipe_without_following_or_waiting(tmp_path, plant):
    f = _folder(tmp_path)
    secret = tmp_path / "solutions"
    secret.mkdir()
    (secret / "00_fixture.ipynb").write_text("BEGIN SOLUTION")
    name = f.name
    if plant == "link_file":
        (f / "00_fixture.ipynb").unlink()
        (f / "00_fixture.ipynb").symlink_to(secret / "00_fixture.ipynb")
    elif plant == "link_folder":
        (f / "sub dir" / "more").symlink_to(secret)
    elif plant == "pipe":
        (f / "00_fixture.ipynb").unlink()
        os.mkfifo(f / "00_fixture.ipynb")
    else:
        name = "linked"
        (f.parent / name).symlink_to(secret)
    result = []
    reader = threading.Thread(target=lambda: result.append(_take(f.parent, name, into=tmp_path / "snap")), daemon=True)
    reader.start()
    reader.join(timeout=20)
    assert result, "the take waited on what the folder holds"
    assert result[0].refusal in ("it is not a folder (a link or a file)",) or \
        "which is neither a file nor a folder" in result[0].refusal, result[0]
    assert not any("BEGIN SOLUTION" in p.read_text() for p in (tmp_path / "snap").rglob("*") if p.is_file())


@root_only
def test_a_take_refuses_a_folder_holding_anything_another_account_wrote(tmp_path):
    f = _folder(tmp_path)
    os.chown(f / "sub dir" / "data.csv", OTHER, OTHER)
    assert "written by another account" in _take(f.parent, f.name).refusal
    for p in [f, *f.rglob("*")]:
        os.lchown(p, OTHER, OTHER)
    taken = _take(f.parent, f.name)
    assert taken.refusal is None and taken.owner == OTHER


@root_only
def test_a_course_folder_another_account_made_is_refused_by_a_release_and_moved_aside_by_the_class(tmp_path):
    course = fixture_course(tmp_path / "course")
    exchange = tmp_path / "exchange"
    (exchange / COURSE_ID / "inbound").mkdir(parents=True)
    exchange.chmod(0o777)  # as nbgrader documents it: world-writable, not sticky
    os.chown(exchange / COURSE_ID, OTHER, OTHER)  # a student made the course's folder first
    out = nbgrader("release_assignment", "00_fixture", f"--Exchange.root={exchange}", cwd=course)
    said = out.stdout + out.stderr
    assert out.returncode != 0 and "Traceback" not in said, said
    assert f"the exchange's {exchange / COURSE_ID} is made by user id {OTHER}, not by this account" in said, said
    assert not (exchange / COURSE_ID / "outbound").exists()
    assert "it is sticky now" in said and stat.S_IMODE(exchange.stat().st_mode) == 0o1777, said  # that much it fixes

    lines = exchange_folders.secure(exchange, COURSE_ID, move_aside=True)
    assert len(lines) == 1 and "moved aside to" in lines[0], lines
    assert [p.name for p in exchange.glob(f"{COURSE_ID}.suspect-*")], list(exchange.iterdir())
    for sub, mode in exchange_folders.MODES.items():
        info = os.lstat(exchange / COURSE_ID / sub)
        assert info.st_uid == 0 and stat.S_IMODE(info.st_mode) == mode, (sub, oct(info.st_mode))
    assert stat.S_IMODE(exchange.stat().st_mode) == 0o1777
    out = nbgrader("release_assignment", "00_fixture", f"--Exchange.root={exchange}", cwd=course)
    assert out.returncode == 0, out.stdout + out.stderr
    assert exchange_folders.secure(exchange, COURSE_ID) == []  # put right once, nothing more to say


@root_only
def test_a_student_does_not_trust_course_folders_that_are_not_the_courses_own(tmp_path):
    exchange = tmp_path / "exchange"
    exchange_folders.secure(exchange, COURSE_ID)
    assert exchange_folders.student_problem(exchange, COURSE_ID) is None
    (exchange / COURSE_ID / "inbound").chmod(0o733)  # nbgrader's inbound: not sticky
    assert "lets other accounts see or move submissions" in exchange_folders.student_problem(exchange, COURSE_ID)
    (exchange / COURSE_ID / "inbound").chmod(0o3733)
    os.rename(exchange / COURSE_ID / "outbound", tmp_path / "real-outbound")
    (exchange / COURSE_ID / "outbound").symlink_to(tmp_path / "real-outbound")
    assert "is not the course's own" in exchange_folders.student_problem(exchange, COURSE_ID)
    exchange.chmod(0o777)
    assert "lets any account move the course's folder away" in exchange_folders.student_problem(exchange, COURSE_ID)


def test_an_archive_of_what_students_write_keeps_links_and_pipes_as_they_are_and_never_waits(tmp_path):
    import tarfile

    f = _folder(tmp_path)
    os.mkfifo(f / "pipe.ipynb")
    (f / "link.ipynb").symlink_to("/dev/zero")
    (f / "sub dir" / "linked").symlink_to(tmp_path)
    out = tmp_path / "backup.tar.gz"
    done = []

    def backup():
        with tarfile.open(out, "w:gz") as tar:
            done.append(fdcopy.archive(tar, tmp_path / "inbound", "class/exchange"))

    worker = threading.Thread(target=backup, daemon=True)
    worker.start()
    worker.join(timeout=20)
    assert done == [0], "the archive waited on a pipe, or left something out"
    with tarfile.open(out) as tar:
        members = {m.name.split("/", 3)[-1]: m for m in tar.getmembers()}
        assert members["pipe.ipynb"].isfifo() and members["link.ipynb"].issym()
        assert members["sub dir/linked"].issym() and members["link.ipynb"].linkname == "/dev/zero"
        assert tar.extractfile(members["00_fixture.ipynb"]).read() == b'{"cells": []}'
