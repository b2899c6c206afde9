"""Where a class server keeps its state, and the description of the class that the hub's configuration reads.

``CLASS_DIR`` (default ``/srv/pytorch-course``) holds:

* ``class.json``: the class as ``autograder hub start`` last described it (roster, course directory,
  limits, where servers run) -- the one file the hub's configuration reads;
* ``jupyterhub_config.py``: three lines that hand ``class.json`` to :func:`autograder.hub.config.configure`;
* ``hub/``: the hub's own state (its database, cookie secret, proxy token, log and pid), root's alone;
* ``exchange/``: nbgrader's exchange, its course folders root's and each student's copies, submissions and
  feedback their own (:mod:`autograder.adapters.exchange_folders`);
* ``jupyter/``: the Jupyter configuration every server of the class reads first (nbgrader's exchange and
  course id, the nbgrader extensions a learner's server has), on ``JUPYTER_CONFIG_PATH`` rather than in
  ``/etc/jupyter``, so nothing else on the machine changes;
* ``initial-passwords.csv``: first passwords of the accounts the class made (root's alone);
* ``backups/``: what ``autograder hub backup`` writes;
* ``.autograder/written.json``: the digest of each file above that ``hub start`` wrote last, so that one a
  person edited since is kept beside it before it is written again
  (:func:`autograder.values.files.write_for_people`).

The course directory itself (solutions, gradebook, submissions) is where the instructor keeps it; the
formgrader service runs there.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

DEFAULT_CLASS_DIR = Path("/srv/pytorch-course")
SERVICE = "formgrader"  # the hub service that runs nbgrader's formgrader in the course directory


@dataclass
class ClassDescription:
    """What the hub needs to know of a class (written by ``hub start``, read by the hub's configuration)."""

    course_id: str
    course_root: str
    class_dir: str
    python: str  # the interpreter whose environment holds JupyterHub, nbgrader and this package
    instructors: list[str] = field(default_factory=list)
    students: list[str] = field(default_factory=list)
    ip: str = "127.0.0.1"
    port: int = 8000
    proxy_api_port: int = 8001  # the proxy's own API (loopback)
    hub_api_port: int = 8002  # the hub's API, which servers and services call (loopback, or --ip on Slurm)
    service_port: int = 8003  # the formgrader service (loopback)
    mem_limit: str = "4G"  # per person's server, its kernels included
    max_processes: int = 256
    cull_idle_seconds: int = 3600
    spawner: str = "local"  # or "slurm": the servers run as batch jobs (batchspawner)
    slurm_partition: str = ""
    slurm_gpus: int = 0
    slurm_hours: int = 4

    def save(self, path: Path) -> None:
        Path(path).write_text(json.dumps(asdict(self), indent=1) + "\n")

    @classmethod
    def load(cls, path: Path) -> "ClassDescription":
        return cls(**json.loads(Path(path).read_text()))


@dataclass(frozen=True)
class ClassDir:
    root: Path

    @property
    def description(self) -> Path:
        return self.root / "class.json"

    @property
    def hub_config(self) -> Path:
        return self.root / "jupyterhub_config.py"

    @property
    def state(self) -> Path:
        return self.root / "hub"

    @property
    def exchange(self) -> Path:
        return self.root / "exchange"

    @property
    def jupyter(self) -> Path:
        return self.root / "jupyter"

    @property
    def passwords(self) -> Path:
        return self.root / "initial-passwords.csv"

    @property
    def backups(self) -> Path:
        return self.root / "backups"

    @property
    def pid_file(self) -> Path:
        return self.state / "jupyterhub.pid"

    @property
    def log(self) -> Path:
        return self.state / "jupyterhub.log"

    @property
    def roster_token(self) -> Path:
        """The hub API token with which ``hub start`` takes people off the roster out of the hub (root only)."""
        return self.state / "roster-service-token"
