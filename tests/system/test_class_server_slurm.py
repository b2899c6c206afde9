"""The class server with its learners' servers on Slurm (``autograder hub start --spawner slurm``), on the real
single-node cluster the grading tests use (:mod:`slurm_cluster`): a student signs in, the hub submits their
server as a Slurm job under their own account through batchspawner, the server answers through the hub, and
stopping the class ends the job.  Not covered here: several nodes, a shared file system, accounts made on
other nodes (docs/cluster.md lists what a cluster must provide)."""

from __future__ import annotations

import csv
import http.cookiejar
import json
import pwd
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
import slurm_cluster
from browser_helpers import free_port
from support import fixture_course, folder_for_accounts, tool_env

pytestmark = [
    pytest.mark.slow,
    # with the other class-server test: both open the interpreter's folder to the class's accounts while
    # they run, and one closing it under the other would break the other's servers
    pytest.mark.xdist_group("browser"),
    pytest.mark.skipif(not slurm_cluster.available(), reason="needs Slurm and munge (slurm-wlm, munge) and root"),
    pytest.mark.skipif(not (Path(sys.executable).parent / "configurable-http-proxy").exists(),
                       reason="JupyterHub's proxy is not installed (make setup)"),
]
pytest.importorskip("batchspawner", reason="batchspawner is not installed (make setup)")

STUDENT, INSTRUCTOR, PASSWORD = "cls-sam", "cls-tutor", "sam-Secret-4"


class Browser:
    """A cookie-keeping HTTP client: what a browser does at the hub's pages, without drawing them."""

    def __init__(self, hub: str) -> None:
        self.hub, self.jar = hub, http.cookiejar.CookieJar()
        self.open = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar)).open

    def xsrf(self) -> str:
        return next((c.value for c in self.jar if c.name == "_xsrf"), "")

    def sign_in(self, user: str, password: str) -> None:
        self.open(self.hub + "hub/login", timeout=30).read()
        form = urllib.parse.urlencode({"username": user, "password": password, "_xsrf": self.xsrf()}).encode()
        self.open(urllib.request.Request(self.hub + "hub/login", data=form), timeout=60).read()

    def api(self, path: str, method: str = "GET") -> dict:
        req = urllib.request.Request(self.hub + "hub/api/" + path, method=method,
                                     headers={"X-XSRFToken": self.xsrf(), "Referer": self.hub + "hub/home"})
        with self.open(req, timeout=60) as r:
            body = r.read()
        return json.loads(body) if body else {}


def _hub(course: Path, *args: str, slurm_conf: str = "", timeout: float = 180) -> subprocess.CompletedProcess:
    env = {**tool_env(), **({"SLURM_CONF": slurm_conf} if slurm_conf else {})}
    return subprocess.run([sys.executable, "-m", "autograder", "hub", *args], cwd=course, env=env,
                          capture_output=True, text=True, timeout=timeout)


def _hub_problems(log: Path) -> str:
    """The hub's warnings and errors (not its request lines), to say why a server did not start."""
    lines = log.read_text(errors="replace").splitlines() if log.is_file() else []
    return "\n".join(line for line in lines if line.startswith(("[E ", "[W ", "[C ")) and "XSRF" not in line)[-6000:]


def _job_logs(user: str) -> str:
    """The end of each log the learner's server jobs wrote (batchspawner's default, in their home)."""
    home = Path(pwd.getpwnam(user).pw_dir)
    return "".join(f"\n{path.name}:\n{path.read_text(errors='replace')[-2000:]}"
                   for path in sorted(home.glob(".jupyterhub_slurmspawner_*.log")))


def _squeue(env: dict) -> str:
    return subprocess.run(["squeue", "-h", "-o", "%u %j %T"], env=env, capture_output=True, text=True,
                          timeout=30).stdout


def test_a_learners_server_runs_as_a_slurm_job_of_its_own():
    # the accounts read the cluster's configuration and munge's socket under the folder too
    with folder_for_accounts("class-slurm-", (STUDENT, INSTRUCTOR)) as base:
        course = fixture_course(base / "course")
        roster = base / "roster.csv"
        with open(roster, "w", newline="") as f:
            csv.writer(f).writerows([["username", "role"], [INSTRUCTOR, "instructor"], [STUDENT, "student"]])
        class_dir = base / "class"
        try:
            with slurm_cluster.cluster(base / "slurm") as env:
                _a_server_as_a_job(course, roster, class_dir, env)
        finally:
            _hub(course, "stop", "--class-dir", str(class_dir))


def _a_server_as_a_job(course: Path, roster: Path, class_dir: Path, env: dict) -> None:
    port = free_port()
    out = _hub(course, "start", "--roster", str(roster), "--class-dir", str(class_dir), f"--port={port}",
               f"--proxy-api-port={free_port()}", f"--hub-api-port={free_port()}", f"--service-port={free_port()}",
               "--spawner=slurm", "--partition=grading", "--mem-limit=1G", "--wait=240", slurm_conf=env["SLURM_CONF"],
               timeout=300)
    log = class_dir / "hub" / "jupyterhub.log"
    assert out.returncode == 0, out.stdout + out.stderr + (log.read_text()[-3000:] if log.is_file() else "")
    subprocess.run(["chpasswd"], input=f"{STUDENT}:{PASSWORD}\n", text=True, check=True)
    hub = f"http://127.0.0.1:{port}/"
    student = Browser(hub)
    try:
        student.sign_in(STUDENT, PASSWORD)  # the hub then starts the server (its spawn page)
    except urllib.error.HTTPError as exc:
        pytest.fail(f"signing in: {exc}\n{log.read_text()[-5000:]}")
    try:
        student.api(f"users/{STUDENT}/server", method="POST")
    except urllib.error.HTTPError as exc:  # 202: the spawn goes on in the background
        assert exc.code in (201, 202), (exc.code, log.read_text()[-3000:])
    deadline = time.monotonic() + 240
    while not student.api("user").get("servers", {}).get("", {}).get("ready"):
        assert time.monotonic() < deadline, _hub_problems(log) + "\nqueue: " + _squeue(env) + _job_logs(STUDENT)
        time.sleep(2)
    from autograder.hub.config import server_job_name

    name = server_job_name(class_dir)  # the class's own mark on batchspawner's job name
    jobs = _squeue(env)
    assert f"{STUDENT} {name} RUNNING" in jobs, jobs
    with student.open(hub + f"user/{STUDENT}/lab", timeout=120) as r:  # through the hub, signed in
        assert r.status == 200 and f"/user/{STUDENT}/lab" in r.url and b"JupyterLab" in r.read()
    stopped = _hub(course, "stop", "--class-dir", str(class_dir), slurm_conf=env["SLURM_CONF"])
    assert stopped.returncode == 0, stopped.stderr
    deadline = time.monotonic() + 60
    while STUDENT in _squeue(env) and time.monotonic() < deadline:
        time.sleep(1)
    assert STUDENT not in _squeue(env), _squeue(env) + stopped.stdout
    # a server job the hub left behind (a hub killed mid-shutdown, a cancel lost on a busy controller) is
    # cancelled by the next stop, which says so, even with no hub running; the same person's server in another
    # class on this cluster is not
    def submit(job_name: str) -> str:
        out = subprocess.run(["runuser", "-u", STUDENT, "--", "sbatch", "--parsable", f"--job-name={job_name}",
                              "--partition=grading", "--output=/dev/null", "--wrap", "sleep 600"], env=env,
                             capture_output=True, text=True, cwd=pwd.getpwnam(STUDENT).pw_dir, timeout=60)
        assert out.returncode == 0, out.stderr
        return out.stdout.strip().split(";")[0]

    other_class = server_job_name(class_dir.with_name("another-class"))
    job, other = submit(name), submit(other_class)
    try:
        deadline = time.monotonic() + 60
        while not all(f"{STUDENT} {n} RUNNING" in _squeue(env) for n in (name, other_class)) \
                and time.monotonic() < deadline:
            time.sleep(1)
        assert f"{STUDENT} {name} RUNNING" in _squeue(env), _squeue(env)
        again = _hub(course, "stop", "--class-dir", str(class_dir), slurm_conf=env["SLURM_CONF"])
        assert again.returncode == 0, again.stdout + again.stderr
        assert f"cancelled 1 server job(s) the hub left running in Slurm: {STUDENT} (job {job})" in again.stdout, \
            again.stdout
        assert name not in _squeue(env) and other_class in _squeue(env), _squeue(env)
    finally:
        subprocess.run(["scancel", other], env=env, capture_output=True, timeout=60)
    deadline = time.monotonic() + 60
    while STUDENT in _squeue(env) and time.monotonic() < deadline:
        time.sleep(1)
    assert STUDENT not in _squeue(env), _squeue(env)
