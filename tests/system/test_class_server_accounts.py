"""A class server as its hostile students find it: real accounts on a live hub, each trying what a shared exchange
and a course folder on the same machine would let them, while the instructor works through the formgrader.

The hub is started by ``autograder hub start`` with a roster of one instructor and two students.  The instructor
generates, releases, collects, autogrades and releases feedback through the formgrader's own API (what its
buttons call, as root, in the hub's service); the students fetch and submit with nbgrader as their own accounts,
with the configuration the class gives them.  Between those steps each student account tries to:

* move the course's exchange folder away, or its ``inbound/``, to put folders of its own in their place;
* read a classmate's released copy (a per-student variant);
* refill, empty or move a classmate's submission folder, whose name it has learnt;
* swap its own submission folder for a link to the solutions once the collect has read its notebook, and put a
  named pipe in place of the notebook once it was read (which blocked the class's collect and backup);
* rewrite a collected notebook or submission time in ``submitted/``;
* read what the formgrader and the grader made after the class started: ``autograded/`` (with the hidden tests),
  ``feedback/``, ``.autograder/``, the gradebook, a report and an export;
* read a classmate's released feedback page.

None of it works; what each student handed in is collected as theirs, at the time its files were written, and
each student fetches their own feedback.  A student of the class collected from an LMS download instead does not
stop the formgrader's Release Feedback for the others: it names them, and what to do.  The test starts every process it needs and stops them all, and removes
the accounts it made.
"""

from __future__ import annotations

import csv
import json
import os
import pwd
import subprocess
import sys
import time
from pathlib import Path

import attacks
import pytest
from support import COURSE_ID, folder_for_accounts, run_tool, set_answers
from test_variants import RIGHT, variant_course

pytestmark = [
    pytest.mark.slow,
    # the same group as every other test that opens Python's folder to the accounts (support.folder_for_accounts)
    pytest.mark.xdist_group("browser"),
    pytest.mark.skipif(os.geteuid() != 0, reason="the class server makes accounts: it runs as root"),
    pytest.mark.skipif(not (Path(sys.executable).parent / "configurable-http-proxy").exists(),
                       reason="JupyterHub's proxy is not installed (make setup)"),
]
pytest.importorskip("jupyterhub", reason="JupyterHub is not installed (make setup)")

A = attacks.ASSIGNMENT
PROF, ANA, BEN = "acc-prof", "acc-ana", "acc-ben"
PASSWORDS = {PROF: "prof-Secret-7", ANA: "ana-Secret-8", BEN: "ben-Secret-9"}

# a student's process that waits until the collect has read its notebook (inotify on its own file), then swaps
WATCHER = r"""
import ctypes, os, sys
notebook, action, target, done = sys.argv[1:5]
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.inotify_init()
assert fd >= 0 and libc.inotify_add_watch(fd, notebook.encode(), 0x10) >= 0  # IN_CLOSE_NOWRITE
open(done + ".ready", "w").close()
os.read(fd, 4096)
folder = os.path.dirname(notebook)
if action == "link":  # the folder itself becomes a link to the solutions; the real one is kept at home
    os.rename(folder, os.path.join(os.path.expanduser("~"), "stash"))
    os.symlink(target, folder)
else:  # the notebook becomes a named pipe: whoever opens it to read waits for ever
    os.unlink(notebook)
    os.mkfifo(notebook)
open(done, "w").write(action)
"""


def _hub(course: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return run_tool([sys.executable, "-m", "autograder", "hub", *args], course, timeout=timeout)


def _as(user: str, *cmd: str, env: dict | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    home = pwd.getpwnam(user).pw_dir
    base = {"HOME": home, "USER": user, "LOGNAME": user, "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin"}
    return subprocess.run(["runuser", "-u", user, "--", "env", *(f"{k}={v}" for k, v in {**base, **(env or {})}.items()),
                           *cmd], capture_output=True, text=True, timeout=timeout, cwd=home)


def _denied(user: str, *cmd: str) -> bool:
    """Whether ``user`` is refused ``cmd`` by the machine's permissions."""
    out = _as(user, *cmd)
    return out.returncode != 0 and ("Permission denied" in out.stderr or "Operation not permitted" in out.stderr)


class Formgrader:
    """The formgrader's own API, as its buttons call it, signed in through the hub as the instructor."""

    def __init__(self, hub: str, user: str):
        import requests

        self.hub, self.s = hub, requests.Session()
        for attempt in range(5):  # a first sign-in right after a start is now and then refused: try again
            self.s.get(hub + "hub/login", timeout=60)
            r = self.s.post(hub + "hub/login", timeout=60, allow_redirects=False,
                            data={"username": user, "password": PASSWORDS[user], "_xsrf": self._xsrf("/hub")})
            if r.status_code == 302:
                break
            time.sleep(3)
        page = self.s.get(hub + "services/formgrader/formgrader/manage_assignments", timeout=120)
        assert page.status_code == 200 and "Manage Assignments" in page.text, page.text[:500]

    def _xsrf(self, prefix: str) -> str:
        return next((c.value for c in self.s.cookies if c.name == "_xsrf" and c.path.startswith(prefix)), "")

    def post(self, path: str, timeout: float = 300) -> dict:
        r = self.s.post(self.hub + "services/formgrader/formgrader/api/" + path, timeout=timeout,
                        headers={"X-XSRFToken": self._xsrf("/services/formgrader")})
        assert r.status_code == 200, (path, r.status_code, r.text[:2000])
        answer = r.json()
        assert answer.get("success"), (path, json.dumps(answer)[:4000])
        return answer


@pytest.fixture
def live_class():
    with folder_for_accounts("class-accounts-", PASSWORDS) as base:
        course = variant_course(base / "course")
        roster = base / "class-roster.csv"
        with open(roster, "w", newline="") as f:
            csv.writer(f).writerows([["username", "role"], [PROF, "instructor"], [ANA, "student"], [BEN, "student"]])
        from browser_helpers import free_port

        port = free_port()
        ports = [f"--port={port}", *(f"--{n}-port={free_port()}" for n in ("proxy-api", "hub-api", "service"))]
        class_dir = base / "class"
        try:
            up = _hub(course, "start", "--roster", str(roster), "--class-dir", str(class_dir), "--wait=240", *ports)
            log = class_dir / "hub" / "jupyterhub.log"
            assert up.returncode == 0, up.stdout + up.stderr + (log.read_text()[-4000:] if log.is_file() else "")
            for user, password in PASSWORDS.items():
                subprocess.run(["chpasswd"], input=f"{user}:{password}\n", text=True, check=True)
            yield course, class_dir, f"http://127.0.0.1:{port}/"
        finally:
            _hub(course, "stop", "--class-dir", str(class_dir))


def _learner_env(class_dir: Path) -> dict:
    return {"JUPYTER_CONFIG_PATH": str(class_dir / "jupyter" / "learner")}


def test_no_student_account_reaches_another_students_work_or_the_courses_grading_state(live_class):
    course, class_dir, hub = live_class
    exchange = class_dir / "exchange"
    outbound, inbound = exchange / COURSE_ID / "outbound" / A, exchange / COURSE_ID / "inbound"
    fg = Formgrader(hub, PROF)
    fg.post(f"assignment/{A}/assign")
    fg.post(f"assignment/{A}/release")

    # asked without a class folder, hub status names the class that runs
    status = _hub(course, "status")
    assert f"in {class_dir}: runs at {hub}" in status.stdout, status.stdout + status.stderr

    # the course's exchange folder and its inbound/ cannot be moved away or replaced
    for user in (ANA, BEN):
        assert _denied(user, "mv", str(exchange / COURSE_ID), str(exchange / "mine"))
        assert _denied(user, "mv", str(exchange / COURSE_ID / "inbound"), str(exchange / COURSE_ID / "x"))
        assert _denied(user, "mkdir", str(exchange / COURSE_ID / "outbound" / "forged"))
    assert (exchange / COURSE_ID).is_dir() and not (exchange / "mine").exists()
    # each released copy is its student's alone: nobody lists them, nobody reads a classmate's
    assert _denied(ANA, "ls", str(outbound / ".variants"))
    assert _denied(ANA, "cat", str(outbound / ".variants" / BEN / f"{A}.ipynb"))
    assert _as(ANA, "cat", str(outbound / ".variants" / ANA / f"{A}.ipynb")).returncode == 0

    # each student fetches their own copy and submits it, as their own account, with the class's configuration
    nbgrader = str(Path(sys.executable).parent / "nbgrader")
    handed = {}
    for user in (ANA, BEN):
        out = _as(user, nbgrader, "fetch_assignment", A, env=_learner_env(class_dir))
        assert out.returncode == 0, out.stdout + out.stderr
        nb = Path(pwd.getpwnam(user).pw_dir) / A / f"{A}.ipynb"
        set_answers(nb, {**RIGHT, "ex0_1_solution": RIGHT["ex0_1_solution"] + f"# {user}'s own\n"})
        os.chown(nb, pwd.getpwnam(user).pw_uid, pwd.getpwnam(user).pw_gid)
        out = _as(user, nbgrader, "submit", A, env=_learner_env(class_dir))
        assert out.returncode == 0, out.stdout + out.stderr
        handed[user] = nb.read_text()
    folders = {user: next(p for p in inbound.iterdir() if p.name.startswith(f"{user}+{A}+")) for user in (ANA, BEN)}
    submitted_at = time.time()

    # a classmate's submission folder, its name learnt, cannot be refilled, emptied or moved away
    ben_nb = folders[BEN] / f"{A}.ipynb"
    assert _denied(ANA, "ls", str(inbound))
    assert _denied(ANA, "rm", "-f", str(ben_nb))
    assert _denied(ANA, "cp", str(Path(pwd.getpwnam(ANA).pw_dir) / A / f"{A}.ipynb"), str(folders[BEN] / "extra.ipynb"))
    assert _denied(ANA, "mv", str(folders[BEN]), str(inbound / f"{ANA}+{A}+taken"))
    assert _denied(ANA, "cat", str(ben_nb))

    # each student's process waits for the collect to read its notebook, then swaps in a link to the solutions
    # (ana) or a named pipe (ben); what is collected is what was read, and the collect does not wait on the pipe
    watchers = {}
    for user, action, target in ((ANA, "link", course / "solutions" / A), (BEN, "pipe", "-")):
        done = Path(pwd.getpwnam(user).pw_dir) / "swapped"
        home = pwd.getpwnam(user).pw_dir
        watchers[user] = (done, subprocess.Popen(
            ["runuser", "-u", user, "--", "env", f"HOME={home}", sys.executable, "-c", WATCHER,
             str(folders[user] / f"{A}.ipynb"), action, str(target), str(done)], cwd=home))
        deadline = time.monotonic() + 30
        while not Path(str(done) + ".ready").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
    fg.post(f"assignment/{A}/collect", timeout=120)
    for user, (done, proc) in watchers.items():
        proc.wait(timeout=30)
        assert done.is_file(), f"{user}'s swap never happened: the test exercised nothing"
    assert folders[ANA].is_symlink()
    for user in (ANA, BEN):
        collected = (course / "submitted" / user / A / f"{A}.ipynb").read_text()
        assert collected == handed[user] and "BEGIN SOLUTION" not in collected, user
        from autograder.adapters import times

        when, source = times.submission_time(course, A, user, course / "submitted" / user / A)
        from nbgrader.utils import parse_utc

        assert source == times.COLLECTOR and parse_utc(when).timestamp() <= submitted_at + 1, (user, when)
    # the backup reads every inbound folder too: a pipe there does not stall it
    backup = _hub(course, "backup", "--class-dir", str(class_dir), timeout=120)
    assert backup.returncode == 0, backup.stdout + backup.stderr

    # what was collected is out of every student's reach: neither read, listed nor rewritten
    assert _denied(ANA, "ls", str(course / "submitted"))
    for user in (ANA, BEN):
        assert _denied(ANA, "sh", "-c", f"echo '2000-01-01 00:00:00 UTC' > {course}/submitted/{user}/{A}/timestamp.txt")

    # the formgrader grades and writes feedback after the class started: none of it is a student's to read
    # something left open by a command outside the course's tools (a cp -r as root, a hand-made export) is
    # closed, and said, by the next command that works on the course: here the formgrader's Autograde
    (course / "autograded").chmod(0o755)
    (course / "by-hand.csv").write_text("student,score\n")
    (course / "by-hand.csv").chmod(0o644)
    said = fg.post(f"submission/{A}/{ANA}/autograde", timeout=600)["log"]
    for opened in (course / "autograded", course / "by-hand.csv"):
        assert f"made {opened} private" in said and not opened.stat().st_mode & 0o077, said[-3000:]
    fg.post(f"submission/{A}/{BEN}/autograde", timeout=600)
    # a student of the class who handed in through an LMS download has no exchange submission to tie a page to:
    # Release Feedback releases everyone else's and names them, with what to do
    lms = course / "submitted" / "lms-cleo" / A
    lms.mkdir(parents=True)
    (lms / f"{A}.ipynb").write_text(handed[ANA])
    graded = run_tool([sys.executable, "-m", "autograder", "grade", A, "--student", "lms-cleo"], course)
    assert graded.returncode == 0, graded.stdout + graded.stderr
    fg.post(f"assignment/{A}/generate_feedback", timeout=600)
    said = fg.post(f"assignment/{A}/release_feedback")["log"]
    assert "No feedback released to lms-cleo: it was not submitted through the exchange" in said, said[-3000:]
    made = [run_tool([sys.executable, "-m", "autograder", *cmd], course) for cmd in
            (["report", A], ["export", "--to", "grades.csv"])]
    assert all(out.returncode == 0 for out in made), [out.stdout + out.stderr for out in made]
    later = [course / "autograded" / BEN / A / f"{A}.ipynb", course / "feedback" / BEN / A / f"{A}.html",
             course / ".autograder" / "seeds.json", course / "gradebook.db", course / "grades.csv",
             *(course / "reports").rglob("*.*")]
    for target in later:
        assert target.exists(), target
        assert _denied(ANA, "cat", str(target)), target
    for folder in ("autograded", "feedback", ".autograder", "reports"):
        assert _denied(ANA, "ls", str(course / folder)), folder
    hidden = (course / "autograded" / BEN / A / f"{A}.ipynb").read_text()
    assert "BEGIN HIDDEN TESTS" in hidden  # what the denial above keeps from students

    # each student fetches their own feedback; a classmate's page, its name learnt, is not theirs to read
    pages = sorted((exchange / COURSE_ID / "feedback").glob("*.html"))
    assert len(pages) == 2, pages
    assert _denied(ANA, "ls", str(exchange / COURSE_ID / "feedback"))
    readable = [p for p in pages if _as(ANA, "cat", str(p)).returncode == 0]
    assert len(readable) == 1, readable
    out = _as(BEN, nbgrader, "fetch_feedback", A, env=_learner_env(class_dir))
    assert out.returncode == 0, out.stdout + out.stderr
    assert list((Path(pwd.getpwnam(BEN).pw_dir) / A / "feedback").glob(f"*/{A}.html"))


def test_a_start_whose_environment_the_accounts_cannot_run_refuses_before_it_makes_anything(tmp_path):
    """Each person's server runs the course's Python as that person: a start refuses, in one line, when other
    accounts could not run it, before it makes an account, a class folder or anything else."""
    venv = Path(sys.prefix)
    closed = tmp_path / "closed-env"  # the course's environment, seen through a folder closed to other accounts
    (closed / "bin").mkdir(parents=True)
    closed.chmod(0o700)
    for tool in ("python", "jupyterhub", "configurable-http-proxy"):
        (closed / "bin" / tool).symlink_to(venv / "bin" / tool)
    (closed / "lib").symlink_to(venv / "lib")
    (closed / "pyvenv.cfg").write_text((venv / "pyvenv.cfg").read_text())
    roster = tmp_path / "class-roster.csv"
    roster.write_text(f"username,role\n{PROF}x,instructor\n{ANA}x,student\n")
    course = variant_course(tmp_path / "course")
    out = run_tool([str(closed / "bin" / "python"), "-m", "autograder", "hub", "start", "--roster", str(roster),
                    "--class-dir", str(tmp_path / "class")], course)
    assert out.returncode != 0 and "Traceback" not in out.stderr, out.stdout + out.stderr
    assert "could not run" in out.stderr and "is closed to other accounts" in out.stderr, out.stderr
    for name in (f"{PROF}x", f"{ANA}x"):
        with pytest.raises(KeyError):
            pwd.getpwnam(name)
    assert not (tmp_path / "class").exists() and not (course / ".autograder" / "class.json").exists()
