"""The class server's parts that need no running hub: the roster's checks, the hub's configuration (who may
open the formgrader), the files the command writes, and the control groups of the class server."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from support import tool_env
from traitlets.config import Config

from autograder.hub import groups
from autograder.hub.config import configure
from autograder.hub.layout import SERVICE, ClassDescription
from autograder.hub.class_roster import read_roster
from autograder.values.errors import UserError


def _roster(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "roster.csv"
    p.write_text(text)
    return p


@pytest.mark.parametrize("text, says", [
    ("name,role\nana,student\n", "header with the columns username and role"),
    ("username,role\nAna Lee,student\nprof,instructor\n", "is not a user name"),
    ("username,role\nana,teacher\nprof,instructor\n", "must be instructor or student"),
    ("username,role\nana,student\nana,instructor\n", "listed twice with different roles"),
    ("username,role\nana,student\n", "names no instructor"),
])
def test_a_roster_mistake_is_one_line(tmp_path, text, says):
    with pytest.raises(UserError, match=says):
        read_roster(_roster(tmp_path, text))


def test_a_roster_reads_any_case_and_extra_columns(tmp_path):
    members = read_roster(_roster(tmp_path, "\ufeffUsername,Role,First_Name,Notes\nprof,Instructor,P,x\nana,student,Ana,\n\n"))
    assert [(m.username, m.role, m.first_name) for m in members] == [("prof", "instructor", "P"), ("ana", "student", "Ana")]


def test_the_command_says_what_is_wrong_in_one_line(tmp_path):
    roster = _roster(tmp_path, "username,role\nroot,instructor\n")
    out = subprocess.run([sys.executable, "-m", "autograder", "hub", "start", "--roster", str(roster),
                          "--class-dir", str(tmp_path / "class")], cwd=tmp_path, env=tool_env(),
                         capture_output=True, text=True, timeout=120)
    assert out.returncode != 0 and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert "accounts of the machine itself (root)" in out.stderr, out.stderr
    assert not (tmp_path / "class").exists()  # nothing made for a roster that is refused


def _configured(tmp_path: Path, **kw) -> Config:
    d = ClassDescription(course_id="pytorch-course", course_root=str(tmp_path / "course"),
                         class_dir=str(tmp_path / "class"), python=sys.executable, instructors=["prof"],
                         students=["ana", "ben"], **kw)
    d.save(tmp_path / "class.json")
    c = Config()
    configure(c, tmp_path / "class.json")
    return c


def test_only_the_instructors_may_open_the_formgrader(tmp_path):
    c = _configured(tmp_path)
    assert c.JupyterHub.load_groups == {"formgrade-pytorch-course": {"users": ["prof"]},
                                        "nbgrader-pytorch-course": {"users": ["ana", "ben"]}}
    access = [r for r in c.JupyterHub.load_roles if f"access:services!service={SERVICE}" in r["scopes"]]
    # by name in a role, whose members JupyterHub sets exactly at each start (a group's it only adds to)
    assert access == [r for r in access if r["users"] == ["prof"] and not r.get("groups")]
    assert len(access) == 1
    assert c.Authenticator.allowed_users == {"prof", "ana", "ben"} and not c.Authenticator.admin_users
    assert c.Authenticator.allow_existing_users is False  # the roster alone, not the hub's database
    service = next(s for s in c.JupyterHub.services if s["name"] == SERVICE)
    assert service["cwd"] == str(tmp_path / "course") and "user" not in service  # root: the sandbox needs it
    learner = c.Spawner.environment["JUPYTER_CONFIG_PATH"]
    assert learner.endswith("jupyter/learner") and learner != service["environment"]["JUPYTER_CONFIG_PATH"]
    assert c.JupyterHub.spawner_class == "autograder.hub.spawner.ClassSpawner"
    ports = [c.JupyterHub.port, c.JupyterHub.hub_port, int(c.ConfigurableHTTPProxy.api_url.rsplit(":", 1)[1]),
             int(service["url"].rsplit(":", 1)[1])]
    assert len(set(ports)) == 4, ports  # no two of the class's listeners on one port
    culler = next(s for s in c.JupyterHub.services if s["name"] == "idle-culler")
    assert "--timeout=3600" in culler["command"]


def test_servers_on_slurm_are_submitted_as_their_owner(tmp_path):
    c = _configured(tmp_path, spawner="slurm", slurm_partition="gpu", slurm_gpus=1, ip="10.0.0.5")
    assert c.JupyterHub.spawner_class == "batchspawner.SlurmSpawner"
    assert c.BatchSpawnerBase.exec_prefix.endswith("runuser -u {username} --")
    assert c.SlurmSpawner.req_partition == "gpu" and "--gres=gpu:1" in c.SlurmSpawner.req_options
    assert c.JupyterHub.hub_ip == "10.0.0.5"
    # the class's own job name, so that ending one class's jobs spares another's (tested on Slurm itself)
    from autograder.hub.config import server_job_name

    assert c.SlurmSpawner.batch_submit_cmd == f"sbatch --parsable --job-name={server_job_name(tmp_path / 'class')}"
    assert server_job_name(tmp_path / "class") != server_job_name(tmp_path / "another")


def test_each_class_keeps_its_servers_in_a_control_group_of_its_own(tmp_path):
    c = _configured(tmp_path)
    assert c.ClassSpawner.cgroup_base == groups.class_base(tmp_path / "class") != groups.class_base(tmp_path / "x")


def test_a_changed_generated_file_is_kept_before_it_is_written_again(tmp_path, capsys):
    from autograder.commands.hub import keep_generated
    from autograder.hub.layout import ClassDir

    where = ClassDir(tmp_path / "class")
    f = where.jupyter / "learner" / "nbgrader_config.py"
    keep_generated(where, f, "one\n")
    keep_generated(where, f, "two\n")  # its own earlier text (an older version's) is simply replaced
    assert f.read_text() == "two\n" and not list(f.parent.glob("*.mine-*")) and not capsys.readouterr().out
    f.write_text("edited by hand\n")
    keep_generated(where, f, "two\n")
    kept = list(f.parent.glob("nbgrader_config.mine-*.py"))  # a name Jupyter does not read
    assert f.read_text() == "two\n" and len(kept) == 1 and kept[0].read_text() == "edited by hand\n"
    assert f"kept as {kept[0]}" in capsys.readouterr().out


@pytest.mark.parametrize("unified", [True, False])
def test_each_server_gets_its_own_limits(tmp_path, monkeypatch, unified):
    """Both cgroup layouts, on a folder that stands for /sys/fs/cgroup."""
    root = tmp_path / "cgroup"
    if unified:
        root.mkdir()
        (root / "cgroup.controllers").write_text("cpu memory pids\n")
    else:
        for c in ("memory", "pids"):
            (root / c).mkdir(parents=True)
    monkeypatch.setattr(groups, "CGROUP_ROOT", root)
    base = groups.class_base(Path("/srv/some-class"))
    assert base.startswith(f"{groups.CGROUP_BASE}/class-") and base != groups.class_base(Path("/srv/another-class"))
    procs, missing = groups.limit_groups(base, "ana", 4 << 30, 128)
    assert not missing
    if unified:
        mine = root / base / "ana"
        assert (mine / "memory.max").read_text() == str(4 << 30) and (mine / "pids.max").read_text() == "128"
        assert procs == [mine / "cgroup.procs"]
        for level in (root / groups.CGROUP_BASE, root / base):  # each level hands the controllers down
            assert "+memory" in (level / "cgroup.subtree_control").read_text()
    else:
        assert (root / "memory" / base / "ana" / "memory.limit_in_bytes").read_text() == str(4 << 30)
        assert (root / "pids" / base / "ana" / "pids.max").read_text() == "128"
        assert len(procs) == 2


def test_no_cgroups_is_said(tmp_path, monkeypatch):
    monkeypatch.setattr(groups, "CGROUP_ROOT", tmp_path / "none")
    (tmp_path / "none").write_text("")  # not a folder: nothing can be made under it
    procs, missing = groups.limit_groups("autograder-class", "ana", 1 << 30, 64)
    assert procs == [] and set(missing) == {"memory", "processes"}


def test_hub_stop_signals_only_a_process_still_in_the_persons_group(tmp_path, monkeypatch):
    """A pid listed in a group but found elsewhere when signalled (a reused pid, or ``sam`` against
    ``samantha``) is left alone."""
    assert groups._in_group("0::/autograder-class/sam\n", "/autograder-class/sam")
    assert groups._in_group("12:pids:/other\n4:memory:/autograder-class/sam\n", "/autograder-class/sam")
    assert not groups._in_group("0::/autograder-class/samantha\n", "/autograder-class/sam")
    assert not groups._in_group("0::/autograder-class/sam/x\n", "/autograder-class/sam")
    root = tmp_path / "cgroup"
    (root / "autograder-class" / "sam").mkdir(parents=True)
    monkeypatch.setattr(groups, "CGROUP_ROOT", root)
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        (root / "autograder-class" / "sam" / "cgroup.procs").write_text(f"{other.pid}\n")
        killed, left = groups.stop_group("autograder-class", "sam", within=0.3)
        assert killed == 0 and left == [other.pid] and other.poll() is None
    finally:
        other.kill()
        other.wait()


def test_a_restart_keeps_the_settings_not_given_anew():
    from autograder.cli import build_parser
    from autograder.commands.hub import _settings

    def settings(argv, previous):
        return _settings(build_parser().parse_args(["hub", "start", *argv]), previous)

    first = settings([], None)
    assert (first["port"], first["proxy_api_port"], first["service_port"], first["mem_limit"]) == (8000, 8001, 8003, "4G")
    earlier = ClassDescription(course_id="c", course_root="/c", class_dir="/k", python="p",
                               **settings(["--port=9000", "--mem-limit=2G", "--spawner=slurm", "--partition=gpu"], None))
    assert (earlier.port, earlier.hub_api_port, earlier.service_port) == (9000, 9002, 9003)
    kept = settings([], earlier)
    assert (kept["port"], kept["service_port"], kept["mem_limit"], kept["spawner"], kept["slurm_partition"]) == \
        (9000, 9003, "2G", "slurm", "gpu")
    moved = settings(["--port=7000", "--cull-idle=60"], earlier)
    assert (moved["port"], moved["proxy_api_port"], moved["mem_limit"], moved["cull_idle_seconds"]) == (7000, 7001, "2G", 60)
