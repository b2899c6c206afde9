"""A class term on the class server (``autograder hub``), in a real browser, through both front doors: JupyterHub
with PAM accounts made from a roster, nbgrader's exchange, the formgrader as a service for the instructors alone,
and the sandboxed grader behind its *Autograde* button; and the command line, on the same class.

The term has a due date and an extension.  The instructor generates and releases an assignment from the
formgrader (a learner's copy kept aside in ``notebooks/`` stays as it was); two students sign in, fetch it from
the Assignment List, answer (one right, one wrong and late), Validate and Submit; a third student hands in
through the LMS, collected from its download on the command line.  The instructor collects and autogrades with
the formgrader's buttons, grades the LMS student from the command line, and both doors show the same grade, time
and penalty for each; the formgrader's Generate and Release Feedback, and the command line's feedback and
Canvas export, agree; each exchange student fetches the feedback and sees their score.  A student cannot open
the formgrader, another student's server or files, or the gradebook; each server runs in its own control group
with the class's limits.  The test starts every process it needs and stops them all, and removes the accounts
it made.
"""

from __future__ import annotations

import csv
import datetime as dt
import os
import pwd
import re
import signal
import subprocess
import sys
import shutil
import time
import zipfile
from pathlib import Path

import nbformat
import pytest
from browser_helpers import CHROMIUM, chromium, free_port
from support import COURSE_ID, fixture_course, folder_for_accounts, run_tool, set_answers
from test_browser import ARTIFACTS, GRADE, RUN, UI, VALIDATE, publish, type_into

pytestmark = [
    pytest.mark.slow,
    pytest.mark.xdist_group("browser"),
    pytest.mark.skipif(not CHROMIUM.is_file(), reason=f"{CHROMIUM} is missing (Debian package `chromium`)"),
    pytest.mark.skipif(os.geteuid() != 0, reason="the class server makes accounts: it runs as root"),
    pytest.mark.skipif(not (Path(sys.executable).parent / "configurable-http-proxy").exists(),
                       reason="JupyterHub's proxy is not installed (make setup)"),
]
pytest.importorskip("playwright.sync_api", reason="the `playwright` Python package is not installed")
pytest.importorskip("jupyterhub", reason="JupyterHub is not installed (make setup)")

FIXTURE = "00_fixture"
INSTRUCTOR, RIGHT, WRONG = "cls-prof", "cls-ana", "cls-ben"
LMS = "cls-cleo"  # a student of the class who hands in through the LMS: no account here
PASSWORDS = {INSTRUCTOR: "prof-Secret-1", RIGHT: "ana-Secret-2", WRONG: "ben-Secret-3"}


def _hub(course: Path, *args: str, timeout: float = 180) -> subprocess.CompletedProcess:
    return run_tool([sys.executable, "-m", "autograder", "hub", *args], course, timeout=timeout)


def _as(user: str, *cmd: str) -> subprocess.CompletedProcess:
    return subprocess.run(["runuser", "-u", user, "--", *cmd], capture_output=True, text=True, timeout=60)


def _processes_of(user: str) -> list[int]:
    uid = pwd.getpwnam(user).pw_uid
    return [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit() and _owner(p) == uid]


def _session(hub: str, user: str):
    """A session that has posted ``user``'s password to the hub's sign-in form, as a browser does."""
    import requests

    s = requests.Session()
    s.get(hub + "hub/login", timeout=60)
    s.last = s.post(hub + "hub/login", timeout=60, allow_redirects=False,
                    data={"username": user, "password": PASSWORDS[user], "_xsrf": s.cookies.get("_xsrf", "")})
    return s


def _signs_in(hub: str, user: str, tries: int = 1) -> bool:
    """Whether ``user`` gets past the hub's sign-in form with their password, within ``tries`` tries (as a
    person would try again: once in several runs a first sign-in right after a restart was refused)."""
    for attempt in range(tries):
        with _session(hub, user) as s:
            if s.last.status_code == 302 and "jupyterhub-hub-login" in s.cookies:  # a refused one gets the form
                return True
        time.sleep(3)
    return False


def _opens_formgrader(hub: str, user: str, tries: int = 3) -> bool:
    """Whether ``user``, signed in, gets the formgrader's page (its sign-in through the hub included), within
    ``tries`` tries (see :func:`_signs_in`)."""
    for attempt in range(tries):
        with _session(hub, user) as s:
            r = s.get(hub + "services/formgrader/formgrader/manage_assignments", timeout=120)
            if r.status_code == 200 and "Manage Assignments" in r.text:
                return True
        time.sleep(3)
    return False


def _listening(port: int) -> set[int]:
    """The pids listening on a TCP port of this machine."""
    import psutil

    return {c.pid for c in psutil.net_connections(kind="tcp") if c.status == psutil.CONN_LISTEN and c.laddr.port == port}


def _owner(p: Path) -> int | None:
    try:
        return p.stat().st_uid
    except OSError:
        return None


@pytest.fixture
def class_server():
    """A class folder and a course in a folder every account can pass through (:func:`support.folder_for_accounts`:
    the class server's accounts are removed afterwards, whatever happened)."""
    with folder_for_accounts("class-server-", PASSWORDS) as base:
        course = fixture_course(base / "course")
        roster = base / "roster.csv"
        with open(roster, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["username", "role", "first_name", "last_name"])
            w.writerows([[INSTRUCTOR, "instructor", "Pat", "Prof"], [RIGHT, "student", "Ana", "Lima"],
                         [WRONG, "student", "Ben", "Okafor"]])
        port, internal = free_port(), [free_port() for _ in range(3)]
        try:
            yield course, base / "class", roster, [f"--port={port}", f"--proxy-api-port={internal[0]}",
                                                   f"--hub-api-port={internal[1]}", f"--service-port={internal[2]}"], port
        finally:
            _hub(course, "stop", "--class-dir", str(base / "class"))


def _sign_in(page, hub: str, user: str) -> None:
    page.context.clear_cookies()
    page.goto(hub + "hub/login")
    page.fill("#username_input", user)
    page.fill("#password_input", PASSWORDS[user])
    page.click("#login_submit")
    page.wait_for_load_state()


def _formgrader_action(page, cell: str) -> str:
    """Click one of the formgrader's assignment buttons (its table cell's class) and close the dialog it opens;
    the dialog's text."""
    page.locator(f"#main-table td.{cell} a").first.click()
    modal = page.locator(".modal.in .modal-content").last
    modal.wait_for(state="visible", timeout=RUN)
    text = modal.inner_text()
    modal.locator(".modal-footer button, button.close").first.click()
    page.wait_for_timeout(500)
    return text


def _open_assignment_list(page) -> None:
    page.locator(".lm-MenuBar-item", has_text="Nbgrader").click(timeout=RUN)
    page.locator("li[data-command='nbgrader:open-assignment-list']:visible").click()


def _validate(page, close: bool = True) -> str:
    """Press Validate in the notebook's toolbar and read what its dialog says (closing it, with ``close``)."""
    page.locator(".jp-NotebookPanel-toolbar .validate-button").click()
    dialog = page.locator(".jp-Dialog:has(#validation-message)")
    dialog.wait_for(state="visible", timeout=VALIDATE)
    said = dialog.locator("#validation-message").inner_text()
    if close:
        dialog.locator("button").last.click()
        dialog.wait_for(state="hidden", timeout=UI)
    return said


def _student_works(page, hub: str, user: str, answers: dict, expect_pass: bool, shots: dict,
                   validate_first: bool = False) -> None:
    from playwright.sync_api import expect

    _sign_in(page, hub, user)
    page.goto(f"{hub}user/{user}/lab")  # the hub starts the student's server (a spawn page first)
    page.wait_for_url(re.compile(rf".*/user/{user}/lab.*"), timeout=RUN)
    _open_assignment_list(page)
    released = page.locator("#released_assignments_list > .list_item")
    expect(released).to_have_count(1, timeout=RUN)
    expect(released.first.locator(".item_name")).to_have_text(FIXTURE)
    shots[f"{user}-released"] = ARTIFACTS / f"class-{user}-1-released.png"
    page.screenshot(path=str(shots[f"{user}-released"]))
    released.first.locator(".item_status button").click()  # Fetch
    expect(page.locator("#fetched_assignments_list > .list_item")).to_have_count(1, timeout=RUN)
    path = Path(pwd.getpwnam(user).pw_dir) / FIXTURE / f"{FIXTURE}.ipynb"
    assert path.is_file() and "BEGIN SOLUTION" not in path.read_text() and path.stat().st_uid == pwd.getpwnam(user).pw_uid

    page.locator("#fetched_assignments_list a.assignment-notebooks-link", has_text=FIXTURE).click()
    page.locator(f"#nbgrader-pytorch-course-{FIXTURE} a", has_text=FIXTURE).click()
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=RUN)
    nb = nbformat.read(path, as_version=4)
    index = {c.metadata.get("nbgrader", {}).get("grade_id"): i for i, c in enumerate(nb.cells)}
    if validate_first:  # nothing answered yet: Validate says so in a line per exercise, not with a traceback
        said = _validate(page)
        assert "Exercise 0.1 is not attempted yet" in said and "Traceback" not in said, said
    for gid, text in answers.items():
        type_into(page, index[gid], text)
    page.keyboard.press("Control+s")
    page.wait_for_timeout(1000)

    said = _validate(page, close=False)
    dialog = page.locator(".jp-Dialog:has(#validation-message)")
    shots[f"{user}-validated"] = ARTIFACTS / f"class-{user}-2-validated.png"
    page.screenshot(path=str(shots[f"{user}-validated"]))
    assert ("Success! Your notebook passes all the tests." in said) == expect_pass, said
    dialog.locator("button").last.click()

    page.locator(".lm-TabBar-tab", has_text="Assignments").click()
    page.locator("#fetched_assignments_list .item_status button:text('Submit')").first.click()
    expect(page.locator("#submitted_assignments_list > .list_item")).to_have_count(1, timeout=RUN)


def _student_reads_feedback(page, hub: str, user: str, score: str, shots: dict) -> None:
    from playwright.sync_api import expect

    _sign_in(page, hub, user)
    page.goto(f"{hub}user/{user}/lab")
    page.wait_for_url(re.compile(rf".*/user/{user}/lab.*"), timeout=RUN)
    _open_assignment_list(page)
    submitted = page.locator("#submitted_assignments_list > .list_item")
    expect(submitted).to_have_count(1, timeout=RUN)
    submitted.first.locator("button", has_text="Fetch Feedback").click()
    link = page.locator("#submitted_assignments_list a", has_text="view feedback").first
    expect(link).to_be_visible(timeout=RUN)
    link.click()  # the file browser goes to the feedback's folder
    home = Path(pwd.getpwnam(user).pw_dir)
    pages = sorted((home / FIXTURE / "feedback").glob(f"*/{FIXTURE}.html"))
    assert len(pages) == 1, pages
    expect(page.locator(".jp-DirListing-item", has_text=f"{FIXTURE}.html")).to_be_visible(timeout=RUN)
    # the page itself, as the learner opens it in a browser tab from their server
    page.goto(f"{hub}user/{user}/files/{pages[0].relative_to(home).as_posix()}")
    shots[f"{user}-feedback"] = ARTIFACTS / f"class-{user}-3-feedback.png"
    page.screenshot(path=str(shots[f"{user}-feedback"]))
    text = page.locator("body").inner_text()
    assert score in text, text[:2000]
    assert "BEGIN HIDDEN TESTS" not in text and "hidden_test" not in text


def test_a_term_on_the_class_server(class_server):
    from playwright.sync_api import expect

    import attacks

    course, class_dir, roster, ports, port = class_server
    hub = f"http://127.0.0.1:{port}/"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    # the term's policy: due half a day ago, with two days' extension for one student; and a learner's own copy
    # that a release kept aside in notebooks/, which the formgrader's Generate must leave as it is
    now = dt.datetime.now(dt.timezone.utc)
    with open(course / "nbgrader_config.py", "a") as f:
        f.write(f"\nc.LatePolicy.due_dates = {{{FIXTURE!r}: {(now - dt.timedelta(hours=12)).strftime('%Y-%m-%d %H:%M:%S UTC')!r}}}\n"
                f"c.LatePolicy.extensions = {{{FIXTURE!r}: {{{RIGHT!r}: 48}}}}\n")
    kept = course / "notebooks" / FIXTURE / f"{FIXTURE}.mine-2026-01-01T000000.ipynb"
    kept.write_text((course / "notebooks" / FIXTURE / f"{FIXTURE}.ipynb").read_text().replace("raise NotImplementedError", "pass  # mine"))
    mine = kept.read_text()
    # (a loaded 2-core runner may take longer than the default 90 s to bring the hub up)
    # started as from a script's background (`... &`, nohup, cron): SIGINT and SIGQUIT arrive ignored, which the hub
    # must not pass on to the servers and services it stops with SIGINT
    handlers = {sig: signal.signal(sig, signal.SIG_IGN) for sig in (signal.SIGINT, signal.SIGQUIT)}
    try:
        out = _hub(course, "start", "--roster", str(roster), "--class-dir", str(class_dir), "--wait=240", *ports,
                   timeout=300)
    finally:
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
    log = class_dir / "hub" / "jupyterhub.log"
    assert out.returncode == 0, out.stdout + out.stderr + (log.read_text()[-4000:] if log.is_file() else "")
    made = {row["username"] for row in csv.DictReader(open(class_dir / "initial-passwords.csv"))}
    assert made == set(PASSWORDS) and (class_dir / "initial-passwords.csv").stat().st_mode & 0o077 == 0
    again = _hub(course, "start", "--roster", str(roster), "--class-dir", str(class_dir), *ports)
    assert again.returncode == 0 and "already runs" in again.stdout, again.stdout + again.stderr
    for user, password in PASSWORDS.items():  # the instructor hands out passwords; the test knows its own
        subprocess.run(["chpasswd"], input=f"{user}:{password}\n", text=True, check=True)

    shots: dict[str, Path] = {}
    with chromium(class_dir.parent / "chrome", viewport=(1400, 900)) as ctx:
        ctx.set_default_timeout(UI)
        page = ctx.new_page()

        # the instructor: generate and release from the formgrader, a hub service
        _sign_in(page, hub, INSTRUCTOR)
        page.goto(hub + "services/formgrader/")
        page.wait_for_url(re.compile(r".*/services/formgrader/formgrader.*"), timeout=RUN)
        page.wait_for_selector("#main-table td.assign a", timeout=RUN)
        assert "Success" in _formgrader_action(page, "assign")
        assert kept.read_text() == mine  # Generate rewrote the release and kept the learner's copy
        assert "Success" in _formgrader_action(page, "release")
        shots["released"] = ARTIFACTS / "class-1-instructor-released.png"
        page.screenshot(path=str(shots["released"]))

        # two students: fetch, answer (one right, one wrong), validate, submit
        _student_works(page, hub, RIGHT, attacks.answers(attacks.CORRECT_1, attacks.CORRECT_2), True, shots)
        _student_works(page, hub, WRONG, attacks.answers(attacks.WRONG_1, attacks.CORRECT_2), False, shots,
                       validate_first=True)

        # a student reaches neither the formgrader nor another student's server
        for where in ("services/formgrader/formgrader", f"user/{RIGHT}/lab", f"user/{RIGHT}/api/contents"):
            response = page.goto(hub + where)
            assert response.status in (403, 404) or f"/user/{WRONG}/" in page.url, (where, response.status, page.url)
            assert "Manage Assignments" not in page.content()

        # a third student hands in through the LMS, on time, and comes in through the command line
        lms_roster = class_dir.parent / "lms-roster.csv"
        lms_roster.write_text(f"lms_id,student_id\n5001,{LMS}\n")
        download = class_dir.parent / "canvas.zip"
        answered = class_dir.parent / f"{FIXTURE}.ipynb"
        shutil.copy(course / "notebooks" / FIXTURE / f"{FIXTURE}.ipynb", answered)
        set_answers(answered, attacks.answers(attacks.CORRECT_1, attacks.CORRECT_2))
        on_time = (now - dt.timedelta(days=2)).timetuple()[:6]
        with zipfile.ZipFile(download, "w") as z:
            z.writestr(zipfile.ZipInfo(f"limacleo_5001_9001_{FIXTURE}.ipynb", date_time=on_time), answered.read_text())
        lms = run_tool([sys.executable, "-m", "autograder", "collect", str(download), "--assignment", FIXTURE,
                        "--roster", str(lms_roster)], course)
        assert lms.returncode == 0 and "collected 1 notebook(s) of 1 student(s)" in lms.stdout, lms.stdout + lms.stderr

        # the instructor: collect, autograde each submission (in the sandbox), feedback
        _sign_in(page, hub, INSTRUCTOR)
        page.goto(hub + "services/formgrader/formgrader/manage_assignments")
        page.wait_for_selector("#main-table td.collect a", timeout=RUN)
        assert "Success" in _formgrader_action(page, "collect")
        page.goto(hub + f"services/formgrader/formgrader/manage_submissions/{FIXTURE}")
        rows = page.locator("#main-table tr", has=page.locator("td.autograde a"))
        expect(rows).to_have_count(3, timeout=RUN)  # the two exchange students, and the LMS student
        for student in (RIGHT, WRONG):
            page.locator("#main-table tr", has_text=student).locator("td.autograde a").click()
            modal = page.locator(".modal.in .modal-content").last
            modal.wait_for(state="visible", timeout=GRADE * 1000)
            assert "Success" in modal.inner_text(), modal.inner_text()[:3000]
            modal.locator(".modal-footer button, button.close").first.click()
            page.wait_for_timeout(500)
        # the LMS student is graded from the command line; both doors then show one grade and one time for all
        graded = run_tool([sys.executable, "-m", "autograder", "grade", FIXTURE], course)
        assert graded.returncode == 0, graded.stdout + graded.stderr
        page.reload()
        full_marks = re.compile(r"^\s*3 / 3\s*$")  # nbgrader shows "score / max": "0 / 3" must not pass
        expect(page.locator("#main-table tr", has_text=RIGHT).locator("td.score")).to_have_text(full_marks, timeout=RUN)
        expect(page.locator("#main-table tr", has_text=RIGHT)).to_contain_text("Lima, Ana")  # the roster's names
        expect(page.locator("#main-table tr", has_text=LMS).locator("td.score")).to_have_text(full_marks, timeout=RUN)
        listed = page.request.get(hub + f"services/formgrader/formgrader/api/submissions/{FIXTURE}").json()
        exported = run_tool([sys.executable, "-m", "autograder", "export", "--to", "grades.csv"], course)
        assert exported.returncode == 0, exported.stdout + exported.stderr
        rows = {r["student"]: r for r in csv.DictReader(open(course / "grades.csv"))}
        assert {x["student"] for x in listed} == set(rows) == {RIGHT, WRONG, LMS}, (listed, rows)
        assert {n: float(r["score"]) for n, r in rows.items()} == {RIGHT: 3.0, WRONG: 2.0, LMS: 3.0}, rows
        for x in listed:
            row = rows[x["student"]]
            assert x["autograded"] and not x["needs_manual_grade"], x
            assert float(x["score"]) == float(row["score"]), (x, row)
            assert x["timestamp"][:19] == row["timestamp"].replace(" ", "T")[:19], (x, row)
        penalties = {name: float(row["late_penalty"]) for name, row in rows.items()}
        assert penalties == {RIGHT: 0.0, WRONG: 0.2, LMS: 0.0}, penalties  # half a day late: a day's 10% of 2
        shots["graded"] = ARTIFACTS / "class-2-instructor-graded.png"
        page.screenshot(path=str(shots["graded"]))
        page.goto(hub + "services/formgrader/formgrader/manage_assignments")
        page.wait_for_selector("#main-table td.generate-feedback a", timeout=RUN)
        assert "Success" in _formgrader_action(page, "generate-feedback")
        assert "Success" in _formgrader_action(page, "release-feedback")

        # each student fetches the feedback and sees their score
        _student_reads_feedback(page, hub, RIGHT, "3 / 3", shots)
        _student_reads_feedback(page, hub, WRONG, "2 / 3", shots)

    # the command line's feedback agrees with the formgrader's own pages (none taken for a person's), and the
    # LMS student, who has no exchange submission, gets theirs in feedback/ to hand out through the LMS
    written = run_tool([sys.executable, "-m", "autograder", "feedback"], course)
    assert written.returncode == 0 and "kept as" not in written.stdout, written.stdout + written.stderr
    assert (course / "feedback" / LMS / FIXTURE / f"{FIXTURE}.html").is_file()
    canvas = run_tool([sys.executable, "-m", "autograder", "export", "--format", "canvas", "--roster",
                       str(class_dir.parent / "lms-roster.csv"), "--to", "canvas.csv"], course)
    assert canvas.returncode == 0, canvas.stdout + canvas.stderr
    table = list(csv.reader(open(course / "canvas.csv")))
    assert table[0][5:] == [FIXTURE] and [r[5] for r in table[2:] if r[2] == LMS] == ["3.0"], table
    assert kept.read_text() == mine  # no door lost the learner's copy

    # graded in the sandbox: the grader's own record, and the gradebook, hold each score
    from autograder.grading.store import ResultStore

    for student, score in ((RIGHT, 3.0), (WRONG, 2.0)):
        result = ResultStore(course).get(FIXTURE, student, FIXTURE)
        assert result is not None and result.score == score, result
    # the machine's own permissions: another student's files and the course's secrets are out of reach
    ben_home = Path(pwd.getpwnam(WRONG).pw_dir)
    for target in (ben_home / FIXTURE / f"{FIXTURE}.ipynb", course / "gradebook.db",
                   course / "solutions" / FIXTURE / f"{FIXTURE}.ipynb"):
        assert target.exists()
        denied = _as(RIGHT, "cat", str(target))
        assert denied.returncode != 0 and "Permission denied" in denied.stderr, (target, denied.stdout[:200])
    # each server in its own control group, with the class's memory limit
    servers = [pid for pid in _processes_of(RIGHT) if b"jupyterhub-singleuser" in Path(f"/proc/{pid}/cmdline").read_bytes()]
    assert servers, "the student's server is not running"
    cgroups = Path(f"/proc/{servers[0]}/cgroup").read_text()
    from autograder.hub import groups

    assert f"/{groups.class_base(class_dir)}/{RIGHT}\n" in cgroups, cgroups  # the class's own, under its base

    for name in ("released", f"{RIGHT}-released", "graded", f"{RIGHT}-feedback"):  # docs/class-server.md shows them
        publish(shots[name], f"class-{name}")
    stopped = _hub(course, "stop", "--class-dir", str(class_dir))
    assert stopped.returncode == 0, stopped.stderr
    # a hub that stopped as asked left nothing: its proxy, still exiting, is not reported as left running
    assert "left running" not in stopped.stdout, stopped.stdout + log.read_text()[-4000:]
    deadline = time.monotonic() + 30
    while any(_processes_of(u) for u in PASSWORDS) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not any(_processes_of(u) for u in PASSWORDS), "a server outlived the class server"
    # what the hub leaves of a server (the kernels of a server killed mid-shutdown) is ended by the next
    # stop, which says so; a process of the same person outside the server's control group (a login) is not
    uid = pwd.getpwnam(RIGHT).pw_uid
    stray, login = (subprocess.Popen(["sleep", "600"], user=uid, group=uid, extra_groups=[]) for _ in range(2))
    try:
        for procs in groups.limit_groups(groups.class_base(class_dir), RIGHT, 1 << 30, 64)[0]:
            procs.write_text(str(stray.pid))
        assert stray.pid in groups.group_processes(groups.class_base(class_dir), RIGHT)
        again = _hub(course, "stop", "--class-dir", str(class_dir))
        assert again.returncode == 0, again.stdout + again.stderr
        assert f"stopped what the hub left running of the servers of {RIGHT} (1 process(es))" in again.stdout, \
            again.stdout
        assert stray.wait(timeout=10) == -9 and login.poll() is None
    finally:
        for p in (stray, login):
            p.kill()
            p.wait()
    backup = _hub(course, "backup", "--class-dir", str(class_dir))
    assert backup.returncode == 0 and list((class_dir / "backups").glob("*.tar.gz")), backup.stdout + backup.stderr

    # a start with no options (after a reboot) brings the class back where its people know it
    service_port = int(ports[3].split("=")[1])
    up = _hub(course, "start", "--class-dir", str(class_dir), "--wait=240", timeout=300)
    assert up.returncode == 0 and f"class server: {hub} " in up.stdout, up.stdout + up.stderr + log.read_text()[-3000:]
    again = _hub(course, "start", "--class-dir", str(class_dir))
    assert again.returncode == 0 and "already runs" in again.stdout, again.stdout + again.stderr
    # a hub killed mid-run leaves its proxy on the class's address and its formgrader on its port, with the dead
    # hub's credentials (a new hub's own formgrader could not start): the next stop ends them and says so
    old_service = _listening(service_port)
    assert old_service, "the formgrader service is not listening"
    os.kill(int((class_dir / "hub" / "jupyterhub.pid").read_text()), signal.SIGKILL)
    time.sleep(1)
    assert _listening(service_port) == old_service and _listening(port), "nothing was left to test"
    down = _hub(course, "stop", "--class-dir", str(class_dir))
    assert down.returncode == 0 and "no class server runs" in down.stdout, down.stdout + down.stderr
    assert "stopped what an earlier hub of this class left running (its proxy and services:" in down.stdout, down.stdout
    assert not _listening(service_port) and not _listening(port)
    up = _hub(course, "start", "--class-dir", str(class_dir), "--wait=240", timeout=300)
    assert up.returncode == 0 and f"class server: {hub} " in up.stdout, up.stdout + up.stderr + log.read_text()[-3000:]
    deadline = time.monotonic() + 60
    while not (_listening(service_port) - old_service) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert _listening(service_port) - old_service, "the new hub's formgrader did not start"

    # a later roster takes one student off and swaps the other with the instructor: the running hub says the
    # change needs a restart; after it, the one taken off cannot sign in (the hub's database still holds them),
    # and the formgrader opens for the new instructor alone
    later = roster.with_name("roster-later.csv")
    with open(later, "w", newline="") as f:
        csv.writer(f).writerows([["username", "role"], [INSTRUCTOR, "student"], [RIGHT, "instructor"]])
    kept = _session(hub, WRONG)  # a browser signed in before the restart
    assert kept.get(hub + "hub/home", timeout=60, allow_redirects=False).status_code == 200
    refused = _hub(course, "start", "--roster", str(later), "--class-dir", str(class_dir))
    assert refused.returncode != 0 and "Traceback" not in refused.stderr, refused.stdout + refused.stderr
    assert "a new roster takes effect only at a restart" in refused.stderr, refused.stderr
    assert _hub(course, "stop", "--class-dir", str(class_dir)).returncode == 0
    up = _hub(course, "start", "--roster", str(later), "--class-dir", str(class_dir), "--wait=240", timeout=300)
    assert up.returncode == 0 and f"no longer on the roster, so they cannot sign in (their accounts and files are " \
        f"kept): {WRONG}" in up.stdout, up.stdout + up.stderr
    assert f"removed from the hub, with their sessions and tokens (no longer on the roster): {WRONG}" in up.stdout
    # and the instructor now listed as a student is out of nbgrader's instructors' group (the hub only adds)
    assert f"taken out of the hub group formgrade-{COURSE_ID} (the roster no longer puts them there): {INSTRUCTOR}" \
        in up.stdout, up.stdout
    assert _signs_in(hub, RIGHT, tries=3), up.stdout + log.read_text()[-3000:]
    assert not _signs_in(hub, WRONG, tries=3)
    assert kept.get(hub + "hub/home", timeout=60, allow_redirects=False).status_code != 200  # its session ended
    assert _opens_formgrader(hub, RIGHT) and not _opens_formgrader(hub, INSTRUCTOR)
