"""Each person's server on a shared machine: their own user id, and limits on memory and processes.

:class:`ClassSpawner` is JupyterHub's ``LocalProcessSpawner`` (a server runs as the person's local
account) that also puts the server, and so every kernel it starts, into a control group of that
person's own, with a memory limit (``mem_limit``, swap included where the machine accounts for it) and a
process limit (``max_processes``), before the server's code runs: a student who allocates too much or
forks without end stops their own kernels, never the class's (the groups: :mod:`autograder.hub.groups`).
Where no cgroup can be written (a container without them) the process limit still holds as the account's
rlimit, and the hub's log says the memory limit does not.
"""

from __future__ import annotations

import os
import resource

from jupyterhub.spawner import LocalProcessSpawner
from traitlets import Integer, Unicode

from autograder.hub.groups import CGROUP_BASE, limit_groups, write_control


class ClassSpawner(LocalProcessSpawner):
    """``LocalProcessSpawner`` with a per-person control group (memory, processes) and a process rlimit."""

    max_processes = Integer(256, help="Processes and threads one person's server may run at once.").tag(config=True)
    cgroup_base = Unicode(CGROUP_BASE, help="The control group the class's servers go under.").tag(config=True)

    def make_preexec_fn(self, name):
        setuid = super().make_preexec_fn(name)
        procs, missing = limit_groups(self.cgroup_base, name, int(self.mem_limit or 0), int(self.max_processes))
        if missing:
            self.log.warning("server of %s: no control group for %s here; the process limit holds as an rlimit",
                             name, " and ".join(missing))
        nproc = int(self.max_processes)

        def preexec():
            for path in procs:  # as root, before the server's code: it and all it starts are in its groups
                write_control(path, str(os.getpid()))
            resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
            setuid()

        return preexec
