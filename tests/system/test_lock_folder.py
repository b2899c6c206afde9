"""The grader's lock folder and slot folders in the shared temporary folder, on a host with other accounts.

Another local account may make the lock folder first (its own, mode 0777, with a link planted inside
to a file root would truncate) or plant slot-like files for the reaper: the grader refuses the folder
and never follows, truncates or removes what it does not own.
"""

from __future__ import annotations

import fcntl
import os

import pytest

from autograder.sandbox import uids, zygote_client

OTHER = 12345  # another local account's uid

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="making files of another account needs root")


def test_a_fresh_lock_folder_is_private(tmp_path):
    d = uids.private_dir(tmp_path / "locks")
    assert d.is_dir() and (d.stat().st_mode & 0o777) == 0o700


@needs_root
@pytest.mark.parametrize("how", ["world-writable", "another account's", "a link"])
def test_a_planted_lock_folder_is_refused_and_nothing_is_followed(tmp_path, monkeypatch, how):
    victim = tmp_path / "victim"
    victim.write_text("precious")
    planted = tmp_path / "autograder-uids"
    if how == "a link":
        (tmp_path / "elsewhere").mkdir(mode=0o700)
        planted.symlink_to(tmp_path / "elsewhere")
    else:
        planted.mkdir()
        os.chmod(planted, 0o777 if how == "world-writable" else 0o700)
        if how == "another account's":
            os.chown(planted, OTHER, OTHER)
        (planted / "next").symlink_to(victim)
    monkeypatch.setattr(uids, "LOCK_DIR", planted)
    with pytest.raises(uids.SandboxUnavailable, match="another account may have made it"):
        uids.claim_uid()
    assert victim.read_text() == "precious"


def test_a_link_inside_the_private_folder_is_not_followed(tmp_path, monkeypatch):
    victim = tmp_path / "victim"
    victim.write_text("precious")
    locks = uids.private_dir(tmp_path / "locks")
    (locks / "next").symlink_to(victim)
    monkeypatch.setattr(uids, "LOCK_DIR", locks)
    with pytest.raises(OSError):
        uids.claim_uid()
    assert victim.read_text() == "precious"


@needs_root
def test_the_reaper_removes_only_its_own_stale_slots(tmp_path):
    mine, theirs = tmp_path / "autograder-slot-1-aa", tmp_path / "autograder-slot-2-bb"
    for slot in (mine, theirs):
        slot.mkdir()
        (slot / "file").write_text("x")
        (tmp_path / f"{slot.name}.lock").write_text("")
    os.chown(theirs, OTHER, OTHER)
    os.chown(tmp_path / f"{theirs.name}.lock", OTHER, OTHER)
    held = tmp_path / "autograder-slot-3-cc"
    held.mkdir()
    fd = os.open(tmp_path / f"{held.name}.lock", os.O_CREAT | os.O_WRONLY, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)  # its owner lives
    try:
        assert zygote_client.reap_stale_slots(tmp_path) == 1
    finally:
        os.close(fd)
    assert not mine.exists() and theirs.exists() and held.exists()


@needs_root
def test_a_sandbox_user_id_is_cleared_without_hitting_another_accounts_process():
    """What clears a sandbox user id signals a listed pid only while it still runs as that id (a pid reused
    by another account meanwhile is left alone), and then kills every process of that id."""
    import signal
    import subprocess
    import threading

    sandboxed = subprocess.Popen(["sleep", "60"], user=OTHER, group=OTHER, extra_groups=[])
    mine = subprocess.Popen(["sleep", "60"])
    try:
        assert not uids.signal_as(mine.pid, OTHER, signal.SIGKILL) and mine.poll() is None
        assert uids.user_processes(OTHER) == [sandboxed.pid]
        reaper = threading.Thread(target=sandboxed.wait)  # as the zygote reaps its kernels
        reaper.start()
        assert uids.kill_user(OTHER, timeout=5) and sandboxed.wait(timeout=5) == -signal.SIGKILL
        assert mine.poll() is None
    finally:
        for p in (sandboxed, mine):
            p.kill()
            p.wait()
