"""``autograder hub``: a class server on this machine -- JupyterHub, nbgrader's exchange, the formgrader for
the course's instructors, and the sandboxed grader behind it (:mod:`autograder.hub`).

* ``hub start --roster ROSTER.csv``: make the accounts the roster names, the class folder, and start the
  hub in the background; run again, it starts nothing twice, and keeps every setting of the last start not
  given anew; a late roster takes effect at a restart (accounts added, people taken off shut out).
* ``hub stop``: stop the hub and every server of the class, then end what a hub or server killed mid-run left
  (a Slurm job, or processes in a person's or the hub's control group); the state stays: run ``start`` to
  restart.
* ``hub status``: whether it runs, where, and who is in the class.
* ``hub backup``: one archive of what a class cannot lose (the gradebook, the submissions, the autograded
  notebooks and feedback, the grader's records, the exchange and the hub's database).

It runs as root: it makes accounts, and each person's server runs as that person.

One module of about 410 lines: the four verbs of one command, which share the class's description, its
folders and their checks; what the hub needs to run is in :mod:`autograder.hub` (its processes:
:mod:`autograder.hub.processes`).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from autograder.adapters.exchange_collect import remember
from autograder.adapters.exchange_folders import secure
from autograder.hub import processes
from autograder.hub import class_roster
from autograder.hub.config import INSTRUCTOR_ONLY_PLUGINS, class_groups, roster_token
from autograder.hub.layout import DEFAULT_CLASS_DIR, SERVICE, ClassDescription, ClassDir
from autograder.hub.groups import HUB_GROUP, class_base, join_group, running_classes
from autograder.values import course, private
from autograder.values.errors import UserError
from autograder.values.fdcopy import archive
from autograder.values.files import kept_line, write_for_people

# what a backup holds of the course directory
KEPT = ("gradebook.db", "submitted", "autograded", "feedback", ".autograder", "nbgrader_config.py", "downloaded")


def run(args) -> int:
    where = ClassDir(Path(args.class_dir).resolve() if args.class_dir else DEFAULT_CLASS_DIR)
    if args.action != "status" and os.geteuid() != 0:
        raise UserError(f"hub {args.action} works on the class's accounts and root-only files: run it as root")
    return {"start": start, "stop": stop, "status": status, "backup": backup}[args.action](args, where)


def _url(d: ClassDescription) -> str:
    host = "127.0.0.1" if d.ip in ("", "0.0.0.0") else d.ip
    return f"http://{host}:{d.port}/"


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "hub/api/", timeout=5) as r:
            return r.status == 200
    except (urllib.error.URLError, OSError):
        return False


def keep_generated(where: ClassDir, path: Path, text: str) -> None:
    """Write a file this command makes, by the one rule for files written for people: one a person changed
    since this command wrote it is kept beside it first (``NAME.mine-TIME``, which no tool reads), and said."""
    aside = write_for_people(path, text, where.root)
    if aside:
        print(kept_line(path, aside))


def _jupyter_configs(where: ClassDir, d: ClassDescription) -> None:
    nbgrader = (f"c = get_config()  # noqa: F821 - the class's nbgrader settings (autograder hub)\n"
                f"c.CourseDirectory.course_id = {d.course_id!r}\n"
                f"c.Exchange.root = {str(where.exchange)!r}\n"
                "# per-student variants: drawn at release, each learner fetches their own (autograder.adapters.exchange)\n"
                "c.ExchangeFactory.release_assignment = 'autograder.adapters.exchange.VariantRelease'\n"
                "c.ExchangeFactory.fetch_assignment = 'autograder.adapters.exchange.VariantFetch'\n"
                "# a submission folder is its student's alone; feedback pages each their student's alone\n"
                "c.ExchangeFactory.submit = 'autograder.adapters.exchange.CheckedSubmit'\n"
                "c.ExchangeFactory.release_feedback = 'autograder.adapters.exchange.CheckedReleaseFeedback'\n"
                "# a collect takes only what each student wrote, when it was written (autograder.adapters.exchange_collect)\n"
                "c.ExchangeFactory.collect = 'autograder.adapters.exchange_collect.CheckedCollect'\n"
                "# Validate says in one line that an exercise is not attempted yet (autograder.adapters.validate)\n"
                "from autograder.adapters.validate import HOOKS\n\n"
                "for _hook, _call in HOOKS.items():\n"
                "    setattr(c.Execute, _hook, _call)\n")
    learner_ext = {"nbgrader.server_extensions.formgrader": False,
                   "nbgrader.server_extensions.assignment_list": True,
                   "nbgrader.server_extensions.course_list": True,
                   "nbgrader.server_extensions.validate_assignment": True}
    for who, extensions in (("learner", learner_ext), ("formgrader", {"nbgrader.server_extensions.formgrader": True})):
        base = where.jupyter / who
        keep_generated(where, base / "nbgrader_config.py", nbgrader)
        offline = {"news_url": None,  # no network at run time: no news feed, no update check, no asking
                   "check_for_updates_class": "jupyterlab.handlers.announcements.NeverCheckForUpdate",
                   "app_settings_dir": str(base / "lab-settings")}
        keep_generated(where, base / "jupyter_server_config.json",
                       json.dumps({"ServerApp": {"jpserver_extensions": extensions}, "LabApp": offline},
                                  indent=1) + "\n")
        keep_generated(where, base / "lab-settings" / "overrides.json", json.dumps(
            {"@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False}},
            indent=1) + "\n")
    keep_generated(where, where.jupyter / "learner" / "labconfig" / "page_config.json",
                   json.dumps({"disabledExtensions": {p: True for p in INSTRUCTOR_ONLY_PLUGINS}}, indent=1) + "\n")
    for p in [where.jupyter, *where.jupyter.rglob("*")]:
        p.chmod(0o755 if p.is_dir() else 0o644)


def _register_students(root: Path, students: list) -> None:
    """The roster's students in nbgrader's gradebook, with the names the roster gives (the formgrader's
    *Manage Students* lists them before anyone submits); a name the roster leaves out is kept."""
    from nbgrader.api import Gradebook

    with Gradebook(course.gradebook_url(root)) as gb:
        for m in students:
            names = {k: v for k, v in (("first_name", m.first_name), ("last_name", m.last_name),
                                        ("email", m.email)) if v}
            gb.update_or_create_student(m.username, **names)


def _closed_folder(path: Path) -> Path | None:
    """The first folder above ``path`` that other accounts may not pass through, if any."""
    for folder in [*reversed(path.parents)]:
        if folder.is_dir() and not folder.stat().st_mode & 0o001:
            return folder
    return None


NOBODY = 65534  # an account id no class member has: what any other account may run, it may


def _check_runnable(python: Path) -> None:
    """Each person's server runs this environment as that person: refuse, saying why, before anything is made,
    when an account other than root's could not (asked as :data:`NOBODY`, with no groups)."""
    probe = subprocess.run(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--",
                            str(python), "-c", "import jupyterhub, nbgrader"],
                           capture_output=True, text=True, cwd="/", env={"PATH": "/usr/bin:/bin"})
    if probe.returncode == 0:
        return
    closed = _closed_folder(python) or _closed_folder(python.resolve())
    why = (f"{closed} is closed to other accounts (chmod o+x {closed} opens it to passing through)"
           if closed else probe.stderr.strip().splitlines()[-1][:200] if probe.stderr.strip() else "")
    raise UserError(f"the class's accounts could not run {python} ({why}): give the class an environment every "
                    f"account can run, e.g. PYTHON=/usr/bin/python3 VENV=/opt/pytorch-course make setup")


# the settings ``hub start`` takes from its options: ClassDescription field -> option (None: derived)
SETTINGS = {"course_root": None, "ip": "ip", "port": "port", "proxy_api_port": "proxy_api_port",
            "hub_api_port": "hub_api_port", "service_port": "service_port", "mem_limit": "mem_limit",
            "max_processes": "max_processes", "cull_idle_seconds": "cull_idle", "spawner": "spawner",
            "slurm_partition": "partition", "slurm_gpus": "gpus"}
PORT_OFFSETS = {"proxy_api_port": 1, "hub_api_port": 2, "service_port": 3}


def _settings(args, previous: ClassDescription | None) -> dict:
    """The class's settings: each option given, else what the class's last start used (a restart after a reboot
    keeps the class where its people know it), else the default; the internal ports follow a new ``--port``."""
    defaults = ClassDescription(course_id="", course_root="", class_dir="", python="")
    out = {}
    for name, option in SETTINGS.items():
        if option is None:
            continue
        given = getattr(args, option)
        if given is not None:
            out[name] = given
        elif name in PORT_OFFSETS and args.port is not None:
            out[name] = args.port + PORT_OFFSETS[name]
        elif previous is not None:
            out[name] = getattr(previous, name)
        else:
            out[name] = getattr(defaults, name)
    return out


def start(args, where: ClassDir) -> int:
    bin_ = Path(sys.executable).parent
    if not (bin_ / "configurable-http-proxy").exists() or shutil.which("jupyterhub", path=str(bin_)) is None:
        raise UserError(f"JupyterHub or its proxy is not installed in {bin_}: run make setup")
    previous = ClassDescription.load(where.description) if where.description.is_file() else None
    if args.roster:
        members = class_roster.read_roster(Path(args.roster))
    elif previous is not None:
        members = [class_roster.Member(n, "instructor") for n in previous.instructors] + \
                  [class_roster.Member(n, "student") for n in previous.students]
    else:
        raise UserError("no class yet in " f"{where.root}: give the roster, --roster ROSTER.csv (columns username,role)")
    class_roster.check_accounts(members)
    if args.course:
        root = Path(args.course).resolve()
    elif previous is not None:
        root = Path(previous.course_root)
        if not root.is_dir():
            raise UserError(f"the class's course folder {root} is gone: give the course, --course COURSE_DIR")
    else:
        root = course.find_root()
    cfg = course.config(root)
    d = ClassDescription(
        course_id=cfg.CourseDirectory.get("course_id", "") or "course", course_root=str(root),
        class_dir=str(where.root), python=sys.executable,
        instructors=sorted(m.username for m in members if m.role == "instructor"),
        students=sorted(m.username for m in members if m.role == "student"), **_settings(args, previous))
    changed = [f"{k} {getattr(previous, k)} -> {getattr(d, k)}" for k in SETTINGS
               if previous is not None and getattr(previous, k) != getattr(d, k)]
    running = processes.hub_pid(where)
    if running is not None and previous is not None and previous == d:
        print(f"the class server already runs (pid {running}): {_url(d)}")
        return 0
    if running is not None:
        what = " and ".join(w for w, differs in (("a new roster", previous is None or (previous.students, previous.instructors)
                                                  != (d.students, d.instructors)), ("new settings", bool(changed))) if differs)
        raise UserError(f"the class server runs (pid {running}) and {what or 'a change'} takes effect only at a restart, "
                        f"which stops everyone's server: autograder hub stop --class-dir {where.root}, then this again")
    _check_runnable(Path(sys.executable))  # the last check: from here on, it acts
    if changed:
        print(f"settings changed from the class's last start: {'; '.join(changed)}")
    where.root.mkdir(parents=True, exist_ok=True)
    where.root.chmod(0o755)  # the exchange and the class's Jupyter settings are under it
    where.state.mkdir(exist_ok=True)
    where.state.chmod(0o700)
    # the course's grading state closed by construction: its folders made closed before anything is written
    # there, and every later command in it writing with umask 077 (autograder.values.private)
    private.mark(root, where.root)
    private.guard(root)
    for line in private.close(root, make=True):
        print(line)
    # the exchange: sticky, the course's folders root's (one another account made is moved aside and said), and
    # each submission folder its student's alone once its time is recorded
    for line in secure(where.exchange, d.course_id, move_aside=True):
        print(line)
    _, closed = remember(root, where.exchange / d.course_id / "inbound")
    if closed:
        print(f"closed {closed} submission folder(s) in the exchange that other accounts could read or write into")
    made = class_roster.make_accounts(members, where.passwords)
    for name in made:
        Path(os.path.expanduser(f"~{name}")).chmod(0o700)  # one person's files are theirs alone
    if made:
        print(f"made {len(made)} account(s): {', '.join(made)}; first passwords in {where.passwords} (root only)")
    gone = sorted(set(previous.instructors + previous.students) - {m.username for m in members}) if previous else []
    if gone:
        print(f"no longer on the roster, so they cannot sign in (their accounts and files are kept): {', '.join(gone)}")
    _register_students(root, [m for m in members if m.role == "student"])
    _jupyter_configs(where, d)
    d.save(where.description)
    keep_generated(where, where.hub_config, "# the class server's JupyterHub settings: autograder.hub.config (made by "
                                     "autograder hub start)\nfrom autograder.hub.config import configure\n\n"
                                     f"configure(get_config(), {str(where.description)!r})  # noqa: F821\n")
    processes.end_left_hub(where)
    log = open(where.log, "ab")
    base = class_base(where.root)
    proc = subprocess.Popen([sys.executable, "-m", "jupyterhub", "-f", str(where.hub_config)], cwd=where.state,
                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                            preexec_fn=lambda: (processes.default_signals(), join_group(base, HUB_GROUP)),
                            env={**os.environ, "PATH": os.pathsep.join([str(bin_), os.environ.get("PATH", "")])})
    deadline = time.monotonic() + args.wait
    while not _answers(_url(d)):
        if proc.poll() is not None:
            raise UserError(f"the hub stopped at start (exit {proc.returncode}); its log: {where.log}")
        if time.monotonic() > deadline:
            raise UserError(f"the hub did not answer within {args.wait} s; its log: {where.log}")
        time.sleep(0.5)
    out = _follow_roster(where, d)
    print(f"class server: {_url(d)} (hub pid {proc.pid}); instructors: {', '.join(d.instructors)}; "
          f"{len(d.students)} student(s); formgrader: {_url(d)}services/{SERVICE}/ (instructors only)")
    print(f"stop: autograder hub stop --class-dir {where.root}   back up: autograder hub backup --class-dir {where.root}")
    return out


def _hub_api(d: ClassDescription, token: str, path: str, method: str = "GET", body: dict | None = None):
    request = urllib.request.Request(_url(d) + "hub/api/" + path, method=method,
                                     data=None if body is None else json.dumps(body).encode(),
                                     headers={"Authorization": f"token {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as r:
        answer = r.read()
    return json.loads(answer) if answer else None


def _follow_roster(where: ClassDir, d: ClassDescription) -> int:
    """Take out of the hub what the roster no longer lists.  The roster decides who signs in, but a person taken
    off keeps, until removed, the sessions and API tokens the hub gave them (a browser signed in for two weeks);
    and the hub only ever adds to a group, so an instructor listed as a student later would stay in the
    instructors' group.  Their account and files stay."""
    roster = set(d.instructors) | set(d.students)
    moved = {}
    try:
        token = roster_token(where)
        held, page = [], 200
        while True:
            users = _hub_api(d, token, f"users?offset={len(held)}&limit={page}")
            held += [u["name"] for u in users]
            if len(users) < page:
                break
        gone = sorted(set(held) - roster)
        for name in gone:
            _hub_api(d, token, f"users/{urllib.parse.quote(name)}", method="DELETE")
        for group, members in class_groups(d).items():
            extra = sorted(set(_hub_api(d, token, f"groups/{urllib.parse.quote(group)}")["users"]) - set(members))
            if extra:
                _hub_api(d, token, f"groups/{urllib.parse.quote(group)}/users", method="DELETE", body={"users": extra})
                moved[group] = extra
    except (OSError, ValueError, KeyError, TypeError) as exc:  # the hub's API refused or is not there: said
        print(f"could not bring the hub in line with the roster ({exc}): if anyone was taken off or changed role, "
              f"run autograder hub stop, then start again, and see {where.log}")
        return 1
    if gone:
        print(f"removed from the hub, with their sessions and tokens (no longer on the roster): {', '.join(gone)}")
    for group, names in moved.items():
        print(f"taken out of the hub group {group} (the roster no longer puts them there): {', '.join(names)}")
    return 0


def stop(args, where: ClassDir) -> int:
    pid = processes.hub_pid(where)
    if pid is None:
        print(f"no class server runs from {where.root}")
        return max(processes.end_left_hub(where), processes.end_left_servers(where))
    os.kill(pid, signal.SIGTERM)  # the hub stops every server, its services and its proxy
    deadline = time.monotonic() + 60
    while processes.hub_pid(where) == pid and time.monotonic() < deadline:
        time.sleep(0.3)
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:  # not our child: it is reaped by its own parent
            pass
    whose = "an earlier hub of this class"
    if processes.hub_pid(where) == pid:
        os.kill(pid, signal.SIGKILL)
        whose = "the hub"
        print(f"the hub had not stopped 60 s after SIGTERM, so it was killed: what it left is ended below; "
              f"its log says why: {where.log}")
    else:
        processes.settle(where)
    print(f"class server stopped (its state stays in {where.root}: autograder hub start restarts it)")
    return max(processes.end_left_hub(where, whose), processes.end_left_servers(where))


def status(args, where: ClassDir) -> int:
    if not args.class_dir:  # no class named: say which classes run on this machine, when the default one does not
        running = [c for c in running_classes() if c != where.root]
        if running and not (where.description.is_file() and processes.hub_pid(where)):
            for other in running:
                _describe(ClassDir(other))
            print("(give --class-dir to ask about one class)")
            return 0
    return _describe(where)


def _describe(where: ClassDir) -> int:
    """One line on the class in ``where``: whether it runs and where, its course and people."""
    if not where.description.is_file():
        print(f"no class in {where.root}")
        return 1
    d = ClassDescription.load(where.description)
    pid = processes.hub_pid(where)
    print(f"class {d.course_id} in {where.root}: {'runs at ' + _url(d) + f' (pid {pid})' if pid else 'stopped'}; "
          f"course {d.course_root}; instructors {', '.join(d.instructors)}; {len(d.students)} student(s)")
    return 0 if pid else 1


def _copy_sqlite(src: Path, dest: Path) -> None:
    """A consistent copy of a live sqlite database (its own backup API, not a file copy)."""
    with sqlite3.connect(f"file:{src}?mode=ro", uri=True) as a, sqlite3.connect(dest) as b:
        a.backup(b)


def backup(args, where: ClassDir) -> int:
    if not where.description.is_file():
        raise UserError(f"no class in {where.root}: nothing to back up (give --class-dir)")
    d = ClassDescription.load(where.description)
    root = Path(d.course_root)
    where.backups.mkdir(exist_ok=True)
    where.backups.chmod(0o700)
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = where.backups / f"{d.course_id}-{stamp}.tar.gz"
    # when each submission in the exchange was written, kept where a restore (new change times) cannot move it
    remember(root, where.exchange / d.course_id / "inbound")
    with tempfile.TemporaryDirectory() as tmp, tarfile.open(out, "w:gz") as tar:
        for name in KEPT:
            p = root / name
            if name.endswith(".db") and p.is_file():
                _copy_sqlite(p, Path(tmp) / name)
                tar.add(Path(tmp) / name, arcname=f"course/{name}")
            elif p.exists():
                tar.add(p, arcname=f"course/{name}")
        hub_db = where.state / "jupyterhub.sqlite"
        if hub_db.is_file():
            _copy_sqlite(hub_db, Path(tmp) / "jupyterhub.sqlite")
            tar.add(Path(tmp) / "jupyterhub.sqlite", arcname="class/hub/jupyterhub.sqlite")
        # the exchange, into which students write: read without following a link or waiting on a pipe
        left_out = archive(tar, where.exchange, "class/exchange") if where.exchange.is_dir() else 0
        for p in (where.description, where.passwords):
            if p.exists():
                tar.add(p, arcname=f"class/{p.name}")
    out.chmod(0o600)
    if left_out:
        print(f"left out of the backup: {left_out} entr(ies) of the exchange that are neither files, folders, links "
              "nor pipes (a socket), or were removed while it was read")
    print(f"backed up to {out} ({out.stat().st_size / 1e6:.1f} MB): restore with tar -xzf, course/ into the course "
          f"directory and class/ into {where.root}")
    return 0
