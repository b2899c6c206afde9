"""The hub's configuration for a class, made from its description (:class:`autograder.hub.layout.ClassDescription`).

What it sets, following nbgrader's documentation for JupyterHub:

* **Accounts.** JupyterHub's PAM authenticator: people sign in with the local account the roster made
  (:mod:`autograder.hub.class_roster`), and only the roster's people may.  Each server runs as its owner's
  account (:class:`autograder.hub.spawner.ClassSpawner`, or Slurm through batchspawner).
* **Groups and the formgrader.** The hub groups ``formgrade-COURSE`` (the instructors) and
  ``nbgrader-COURSE`` (the students), as nbgrader names them.  The formgrader runs as a hub-managed
  service in the course directory; a role gives ``access:services!service=formgrader`` to the
  instructors' group alone, so a student who opens its address is refused by the hub.  The service runs
  as root because grading runs every kernel in the sandbox (:mod:`autograder.sandbox`), which gives each
  kernel a fresh user id: its *Autograde* button grades there (:mod:`autograder.adapters.autograde`).
* **Learners' servers.** JupyterLab with nbgrader's Assignment List, Course List and Validate, and not
  the formgrader or the assignment creator; the class's Jupyter configuration comes first on
  ``JUPYTER_CONFIG_PATH`` (the exchange, the course id).
* **Limits and culling.** Memory and processes per server (:mod:`autograder.hub.spawner`); JupyterHub's
  idle culler stops servers idle for ``cull_idle_seconds``.
"""

from __future__ import annotations

import os
import secrets
import shutil
from pathlib import Path

from autograder.hub.groups import class_base
from autograder.hub.layout import SERVICE, ClassDescription, ClassDir
from autograder.values.digest import sha

# nbgrader's lab plugins a learner's server does not offer (its formgrader and assignment-creation tools)
INSTRUCTOR_ONLY_PLUGINS = ("@jupyter/nbgrader:formgrader", "@jupyter/nbgrader:create-assignment")


ROSTER_SERVICE = "class-roster"  # hub start's own hand in the hub: it takes out what the roster no longer lists


def class_groups(d: ClassDescription) -> dict[str, list[str]]:
    """nbgrader's hub groups of the course (its course lists read them) and who is in each, by the roster."""
    return {f"formgrade-{d.course_id}": list(d.instructors), f"nbgrader-{d.course_id}": list(d.students)}


def roster_token(where: ClassDir) -> str:
    """The roster service's API token, made once (readable by root alone) and kept with the hub's state."""
    path = where.roster_token
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        except FileExistsError:  # made meanwhile by another start
            pass
        else:
            with os.fdopen(fd, "w") as f:
                f.write(secrets.token_hex(32))
    return path.read_text().strip()


def server_job_name(class_dir: Path) -> str:
    """The Slurm job name of one class's learner servers: batchspawner's own (``spawner-jupyterhub``, from its
    batch script, kept as it is) with the class's mark, given on sbatch's command line (which overrides the
    script's), so that ending what one class left never cancels another class's servers, those of a person in
    both included."""
    return f"spawner-jupyterhub-{sha(str(Path(class_dir).resolve()))[:12]}"


def bindir(d: ClassDescription) -> Path:
    return Path(d.python).parent


def configure(c, description: str | Path) -> None:
    """Fill JupyterHub's config object ``c`` for the class described in ``description``."""
    d = ClassDescription.load(description)
    where = ClassDir(Path(d.class_dir))
    bin_ = bindir(d)
    env_path = os.pathsep.join([str(bin_), "/usr/local/bin", "/usr/bin", "/bin"])

    c.JupyterHub.ip = d.ip
    c.JupyterHub.port = d.port
    c.JupyterHub.hub_ip = "127.0.0.1"
    c.JupyterHub.hub_port = d.hub_api_port
    c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{d.proxy_api_port}"
    c.JupyterHub.db_url = f"sqlite:///{where.state / 'jupyterhub.sqlite'}"
    c.JupyterHub.cookie_secret_file = str(where.state / "jupyterhub_cookie_secret")
    c.JupyterHub.pid_file = str(where.pid_file)
    c.ConfigurableHTTPProxy.command = [str(bin_ / "configurable-http-proxy")]
    c.ConfigurableHTTPProxy.pid_file = str(where.state / "proxy.pid")
    c.JupyterHub.cleanup_servers = True  # stopping the hub stops every server of the class

    c.JupyterHub.authenticator_class = "pam"
    c.Authenticator.allowed_users = set(d.instructors) | set(d.students)
    # the roster alone says who may sign in: by default the hub would also let in everyone its database holds,
    # so a person taken off the roster could still sign in after a restart
    c.Authenticator.allow_existing_users = False
    c.Authenticator.admin_users = set()
    c.PAMAuthenticator.open_sessions = False

    c.JupyterHub.load_groups = {name: {"users": users} for name, users in class_groups(d).items()}
    # nbgrader's course list reads the groups; the formgrader's door is a role given to the instructors by name,
    # since a role's members are set exactly at each start and a group's are only ever added to (an instructor
    # who is a student in a later roster would keep the formgrader through the group)
    c.JupyterHub.load_roles = [
        {"name": "formgrader", "description": "open the course's formgrader",
         "users": list(d.instructors), "scopes": [f"access:services!service={SERVICE}"]},
        {"name": "idle-culler", "description": "stop servers left idle",
         "services": ["idle-culler"],
         "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"]},
        {"name": ROSTER_SERVICE, "description": "take people off the roster out of the hub",
         "services": [ROSTER_SERVICE], "scopes": ["list:users", "admin:users", "groups"]},
    ]
    service_env = {"PATH": env_path, "JUPYTER_CONFIG_PATH": str(where.jupyter / "formgrader"),
                   "JUPYTERHUB_DEFAULT_URL": "/formgrader"}
    c.JupyterHub.services = [
        {"name": SERVICE, "url": f"http://127.0.0.1:{d.service_port}", "cwd": d.course_root,
         "oauth_no_confirm": True, "environment": service_env,
          # umask 077: whatever its buttons make in the course (autograded/, feedback/, exports) is root's alone
         "command": ["/bin/sh", "-c", 'umask 077 && exec "$@"', SERVICE,
                     str(bin_ / "jupyterhub-singleuser"), "--allow-root", f"--ServerApp.root_dir={d.course_root}",
                     "--ServerApp.default_url=/formgrader"]},
        {"name": "idle-culler",
         "command": [d.python, "-m", "jupyterhub_idle_culler",
                     f"--timeout={d.cull_idle_seconds}"]},
        {"name": ROSTER_SERVICE, "api_token": roster_token(where)},
    ]

    c.Spawner.default_url = "/lab"
    c.Spawner.notebook_dir = "~"
    c.Spawner.cmd = [str(bin_ / "jupyterhub-singleuser")]
    c.Spawner.environment = {"PATH": env_path, "JUPYTER_CONFIG_PATH": str(where.jupyter / "learner")}
    c.Spawner.mem_limit = d.mem_limit
    c.Spawner.http_timeout = 120
    c.Spawner.start_timeout = 300 if d.spawner == "slurm" else 120
    if d.spawner == "slurm":
        c.JupyterHub.spawner_class = "batchspawner.SlurmSpawner"
        c.JupyterHub.hub_ip = d.ip  # the nodes' servers call the hub's API: it listens where the hub does
        # sbatch as the person (batchspawner's default uses sudo; root needs no sudo to become them)
        runuser = shutil.which("runuser", path=os.pathsep.join(["/usr/sbin", "/sbin", os.environ.get("PATH", "")]))
        c.BatchSpawnerBase.exec_prefix = f"{runuser or 'runuser'} -u {{username}} --"
        c.SlurmSpawner.batch_submit_cmd = f"sbatch --parsable --job-name={server_job_name(where.root)}"
        c.SlurmSpawner.req_partition = d.slurm_partition
        c.SlurmSpawner.req_runtime = f"{d.slurm_hours}:00:00"
        c.SlurmSpawner.req_memory = d.mem_limit
        if d.slurm_gpus:
            c.SlurmSpawner.req_options = f"--gres=gpu:{d.slurm_gpus}"
        c.SlurmSpawner.cmd = [str(bin_ / "batchspawner-singleuser"), str(bin_ / "jupyterhub-singleuser")]
        if os.environ.get("SLURM_CONF"):  # a cluster configured by its file: sbatch and squeue need to find it
            c.Spawner.environment = {**c.Spawner.environment, "SLURM_CONF": os.environ["SLURM_CONF"]}
    else:
        c.JupyterHub.spawner_class = "autograder.hub.spawner.ClassSpawner"
        c.ClassSpawner.max_processes = d.max_processes
        c.ClassSpawner.cgroup_base = class_base(where.root)
