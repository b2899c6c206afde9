"""A real single-node Slurm cluster in a private folder, for the cluster-path tests.

Starts munged (its own key and socket), slurmctld and slurmd from Debian's
``slurm-wlm`` and ``munge`` packages, with ``proctrack/linuxproc``,
``task/none``, no accounting, and a node declaring two GPUs backed by fake
character devices so that Slurm's ``CUDA_VISIBLE_DEVICES`` assignment is
exercised.  Everything is torn down by PID.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path


def available() -> bool:
    return all(shutil.which(t) for t in ("munged", "slurmctld", "slurmd", "sbatch", "squeue")) and os.geteuid() == 0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait(pred, timeout: float, what: str) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return
        time.sleep(0.2)
    raise TimeoutError(f"{what} did not come up in {timeout:.0f} s")


@contextmanager
def cluster(base: Path, cpus: int = 2, gpus: int = 2):
    base = Path(base)
    for d in ("munge", "state", "spool", "log"):
        (base / d).mkdir(parents=True, exist_ok=True)
    os.chmod(base, 0o755)
    os.chmod(base / "munge", 0o755)  # munged wants a world-executable socket directory
    key = base / "munge" / "munge.key"
    key.write_bytes(os.urandom(1024))
    os.chmod(key, 0o600)
    for i in range(gpus):
        dev = base / f"gpu{i}"
        if not dev.exists():
            os.mknod(dev, 0o666 | 0o020000, os.makedev(1, 3))  # a character device, like /dev/null
    host = socket.gethostname()
    sock = base / "munge" / "munge.socket"
    conf = base / "slurm.conf"
    conf.write_text(f"""ClusterName=grading
SlurmctldHost={host}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={sock}
CredType=cred/munge
StateSaveLocation={base / 'state'}
SlurmdSpoolDir={base / 'spool'}
SlurmctldPidFile={base / 'slurmctld.pid'}
SlurmdPidFile={base / 'slurmd.pid'}
SlurmctldPort={_free_port()}
SlurmdPort={_free_port()}
SlurmctldLogFile={base / 'log' / 'slurmctld.log'}
SlurmdLogFile={base / 'log' / 'slurmd.log'}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
MailProg=/bin/true
KillWait=5
MinJobAge=5
NodeName={host} CPUs={cpus} RealMemory=16000 Gres=gpu:{gpus} State=UNKNOWN
PartitionName=grading Nodes=ALL Default=YES MaxTime=INFINITE State=UP
""")
    (base / "gres.conf").write_text(f"NodeName={host} Name=gpu File={base}/gpu[0-{gpus - 1}]\n")
    env = dict(os.environ, SLURM_CONF=str(conf))
    procs = []
    try:
        procs.append(subprocess.Popen(
            ["munged", "-F", "-f", f"--socket={sock}", f"--key-file={key}", f"--pid-file={base / 'munge' / 'pid'}",
             f"--log-file={base / 'log' / 'munged.log'}", f"--seed-file={base / 'munge' / 'seed'}"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        _wait(sock.exists, 20, "munged")
        for daemon in ("slurmctld", "slurmd"):
            procs.append(subprocess.Popen([daemon, "-D", "-f", str(conf)], env=env,
                                          stdout=open(base / "log" / f"{daemon}.out", "w"), stderr=subprocess.STDOUT))

        def idle():
            out = subprocess.run(["sinfo", "-h", "-o", "%t"], env=env, capture_output=True, text=True, timeout=10)
            return out.returncode == 0 and "idle" in out.stdout

        _wait(idle, 60, "slurm")
        yield env
    finally:
        for p in reversed(procs):
            try:
                p.send_signal(signal.SIGTERM)
                p.wait(timeout=10)
            except (subprocess.TimeoutExpired, OSError):
                p.kill()
                p.wait()
