"""Kernels forked by the zygote: isolated from the zygote and from each other.

One notebook tries to outlive its run and to reach the zygote (a daemon process, files in
/tmp and /dev/shm, a System V shared memory segment, signals to the zygote, its environment and
its stdin); the next notebook, forked by the same zygote, must find none of it.  Survivors of
every kind (double fork, ``setsid``, a fork storm, processes that re-fork faster than a kill
loop) are gone the moment the run returns; two notebooks running at the same time, in two
grading processes, cannot see each other's processes, sockets, keys or files.  The child the zygote
isolates ahead for the next notebook waits in namespaces of its own, and one that died is replaced.
A kernel reaches the Python and the package its grader runs wherever they lie (under /tmp, through a link).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import nbformat
import pytest

from autograder.grading.execute import execute
from autograder.sandbox import launch as sandbox
from autograder.sandbox import uids, zygote_client

pytestmark = pytest.mark.skipif(not sandbox.available(), reason="the sandbox needs bubblewrap and root")

PLANT = r'''
import ctypes, json, os, signal, subprocess, sys, time
report = {}
me = os.getuid()
report["foreign"] = []
for p in os.listdir("/proc"):
    if p.isdigit():
        try:
            if os.stat(f"/proc/{p}").st_uid != me:
                report["foreign"].append(p)
        except OSError:
            pass
open("/tmp/planted", "w").write("x"); open("/dev/shm/planted", "w").write("x")
libc = ctypes.CDLL(None, use_errno=True)
report["shmget"] = libc.shmget(0x5EED, 4096, 0o1000 | 0o666)  # IPC_CREAT
for pid in (1, 2):
    try:
        os.kill(pid, signal.SIGKILL); report[f"kill{pid}"] = "sent"
    except OSError as e:
        report[f"kill{pid}"] = type(e).__name__
for path in ("/proc/2/environ", "/proc/2/fd/0", "/proc/2/mem"):
    try:
        with open(path, "rb") as f:
            f.read(1)
        report[path] = "read"
    except OSError as e:
        report[path] = type(e).__name__
try:
    with open("/proc/2/fd/0", "wb") as f:
        f.write(b'{"uid": 0}\n')
    report["write stdin"] = "written"
except OSError as e:
    report["write stdin"] = type(e).__name__
report["caps"] = open("/proc/self/status").read().split("CapEff:")[1].split()[0]
report["uid"] = os.getuid()
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True)
print(json.dumps(report))
'''

LOOK = r'''
import json, os
procs = []
for p in os.listdir("/proc"):
    if p.isdigit():
        try:
            procs.append(open(f"/proc/{p}/cmdline").read().replace("\0", " ").strip())
        except OSError:
            pass
print(json.dumps({"tmp": sorted(n for n in os.listdir("/tmp") if n == "planted"),
                  "shm": sorted(os.listdir("/dev/shm")),
                  "sysv": open("/proc/sysvipc/shm").read().splitlines()[1:],
                  "sleepers": [c for c in procs if "sleep(600)" in c]}))
'''


def run(source: str) -> tuple[dict, float, bool]:
    sb = sandbox.Sandbox()
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
    start = time.monotonic()
    with sb.work_folder() as work:
        res = execute(nb, work, sandbox=sb)
    assert res.error is None, res.error
    text = "".join(o.get("text", "") for o in res.nb.cells[0].outputs if o.get("output_type") == "stream")
    return json.loads(text.strip().splitlines()[-1]), time.monotonic() - start, sb.zygote


def test_a_kernel_cannot_reach_the_zygote_or_the_next_kernel(monkeypatch):
    monkeypatch.delenv("AUTOGRADER_ZYGOTE", raising=False)
    planted, _, forked = run(PLANT)
    assert forked, "the zygote was not used"
    assert planted["uid"] >= uids.UID_BASE and planted["caps"] == "0000000000000000"
    assert planted["shmget"] >= 0  # it may make one, in an IPC namespace of its own
    # its PID namespace holds its own processes only: the zygote and its helpers are not there to
    # be signalled, traced or read (pids 1 and 2 are the kernel itself and one of its threads)
    assert planted["foreign"] == [], planted
    seen, seconds, forked = run(LOOK)
    assert forked
    assert seen == {"tmp": [], "shm": [], "sysv": [], "sleepers": []}, seen
    # and the zygote still serves kernels quickly (no import torch per kernel)
    again, seconds, _ = run("import torch, json; print(json.dumps({'sum': float(torch.ones(3).sum())}))")
    assert again == {"sum": 3.0}


def test_without_the_zygote_each_kernel_gets_a_sandbox_of_its_own(monkeypatch):
    monkeypatch.setenv("AUTOGRADER_ZYGOTE", "0")
    seen, _, forked = run(LOOK)
    assert not forked and seen["tmp"] == [] and seen["sleepers"] == []


def test_a_zygote_that_will_not_start_falls_back_to_a_sandbox_per_kernel(monkeypatch):
    monkeypatch.delenv("AUTOGRADER_ZYGOTE", raising=False)

    class Broken:
        def __init__(self, slot):
            raise uids.SandboxUnavailable("broken on purpose")

    zygote_client.shutdown_zygote()
    monkeypatch.setattr(zygote_client, "Zygote", Broken)
    seen, _, _ = run(LOOK)
    assert seen["sleepers"] == [] and seen["tmp"] == []
    assert zygote_client._ZYGOTE_FAILED == os.getpid()  # and it does not try again for every kernel
    zygote_client.shutdown_zygote()


SURVIVORS = r"""
import os, signal, subprocess, sys, time
MARK = "survivor-%d" % os.getuid()
def forever():
    while True:
        time.sleep(0.05)
# a double fork with setsid: the classic daemon
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        forever()
    os._exit(0)
# a storm of sleepers, each in a session of its own
for _ in range(20):
    subprocess.Popen([sys.executable, "-c", f"import time; time.sleep(600) # {MARK}"], start_new_session=True)
# a re-forker: forks a child and exits, again and again, so no pid lives long enough to be listed
if os.fork() == 0:
    os.setsid()
    while True:
        if os.fork() != 0:
            os._exit(0)
        time.sleep(0.001)
time.sleep(1)
print('{"uid": %d}' % os.getuid())
"""


def test_nothing_a_notebook_starts_outlives_it(monkeypatch):
    monkeypatch.delenv("AUTOGRADER_ZYGOTE", raising=False)
    planted, _, forked = run(SURVIVORS)
    assert forked
    # the run has returned: every process of the notebook's user is gone already, not eventually
    assert uids.user_processes(planted["uid"]) == [], "processes outlived their notebook"
    seen, _, _ = run(LOOK)
    assert seen["sleepers"] == []


def test_every_notebook_gets_a_fresh_user_id(monkeypatch):
    monkeypatch.delenv("AUTOGRADER_ZYGOTE", raising=False)
    uids = [run("import os; print('{\"uid\": %d}' % os.getuid())")[0]["uid"] for _ in range(3)]
    assert len(set(uids)) == 3, uids


def _waiting_children() -> list:
    """The processes below this grading process's zygote (the child it isolated ahead, between runs)."""
    import psutil

    def live(procs):  # a finished run's helper may wait, a zombie, for the zygote to reap it
        found = []
        for p in procs:
            try:
                if p.status() != psutil.STATUS_ZOMBIE and p.name() != "bwrap" \
                        and "autograder.sandbox.zygote" in " ".join(p.cmdline()):
                    found.append(p)
            except psutil.Error:
                pass
        return found

    forks = live(psutil.Process(zygote_client.zygote().proc.pid).children(recursive=True))
    zygote = next(p for p in forks if p.ppid() not in {q.pid for q in forks})
    return zygote, live(zygote.children(recursive=True))


def test_the_next_child_waits_isolated_and_a_dead_one_is_replaced(monkeypatch):
    monkeypatch.delenv("AUTOGRADER_ZYGOTE", raising=False)
    assert run("print('{}')")[2]
    zygote, waiting = _waiting_children()
    deadline = time.monotonic() + 10
    while len(waiting) < 2 and time.monotonic() < deadline:  # the helper and its kernel, forked after the reply
        time.sleep(0.05)
        zygote, waiting = _waiting_children()
    assert len(waiting) == 2, waiting
    # already in namespaces of its own, as root, with nothing of a notebook's yet
    kernel = next(p for p in waiting if p.ppid() != zygote.pid)
    for ns in ("pid", "mnt", "net", "ipc"):
        assert os.readlink(f"/proc/{kernel.pid}/ns/{ns}") != os.readlink(f"/proc/{zygote.pid}/ns/{ns}"), ns
    assert kernel.uids().real == 0
    # a waiting child that died is replaced: the next notebook still gets a forked kernel
    for p in waiting:
        p.kill()
    seen, _, _ = run("import json, os; print(json.dumps({'pid': os.getpid()}))")
    assert seen == {"pid": 1}, "the kernel did not come from the zygote (a sandbox of its own has bwrap as process 1)"


NEIGHBOUR = r"""
import os, socket, time
tcp = socket.socket(); tcp.bind(("127.0.0.1", 47123)); tcp.listen()
unix = socket.socket(socket.AF_UNIX); unix.bind("\0autograder-neighbour"); unix.listen()
open("ready", "w").write("x")
time.sleep(20)
print('{"done": true}')
"""

PROBE = r"""
import glob, json, os, socket
found = {}
try:
    socket.create_connection(("127.0.0.1", 47123), timeout=2); found["tcp"] = "connected"
except OSError as e:
    found["tcp"] = type(e).__name__
s = socket.socket(socket.AF_UNIX)
try:
    s.connect("\0autograder-neighbour"); found["unix"] = "connected"
except OSError as e:
    found["unix"] = type(e).__name__
found["abstract"] = [l for l in open("/proc/net/unix") if "autograder-neighbour" in l]
me = os.getuid()
found["foreign"] = [p for p in os.listdir("/proc") if p.isdigit() and os.stat(f"/proc/{p}").st_uid != me]
found["keys"] = [f for f in glob.glob("/tmp/**/kernel.json", recursive=True) if not f.startswith(os.getcwd())]
found["others"] = [f for f in glob.glob("/tmp/autograder-slot-*/*")]
print(json.dumps(found))
"""


def _run_in_process(source: str, queue) -> None:
    os.environ.pop("AUTOGRADER_ZYGOTE", None)
    sb = sandbox.Sandbox()
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
    with sb.work_folder() as work:
        queue.put(("work", str(work)))
        res = execute(nb, work, sandbox=sb)
    text = "".join(o.get("text", "") for o in res.nb.cells[0].outputs if o.get("output_type") == "stream")
    queue.put(("out", res.error, text))


def test_two_notebooks_at_the_same_time_cannot_reach_each_other():
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    qa, qb = ctx.Queue(), ctx.Queue()
    a = ctx.Process(target=_run_in_process, args=(NEIGHBOUR, qa))
    a.start()
    work_a = qa.get(timeout=120)[1]
    deadline = time.monotonic() + 120
    while not os.path.exists(os.path.join(work_a, "ready")):
        assert time.monotonic() < deadline, "the first notebook did not start"
        time.sleep(0.1)
    b = ctx.Process(target=_run_in_process, args=(PROBE, qb))
    b.start()
    qb.get(timeout=120)
    _, error, text = qb.get(timeout=300)
    b.join(60)
    assert error is None, error
    found = json.loads(text.strip().splitlines()[-1])
    assert found["tcp"] != "connected" and found["unix"] != "connected", found
    assert found["abstract"] == [] and found["foreign"] == [], found
    assert found["keys"] == [] and found["others"] == [], found
    _, error, text = qa.get(timeout=300)
    a.join(60)
    assert error is None and '"done": true' in text


def test_a_grading_process_that_was_killed_leaves_no_slot_behind(tmp_path):
    """A grader killed mid-run (out of memory, a job's time limit) cannot clean up after itself: the
    next grading process of the machine removes its slot, and never the slot of one still running."""
    import signal
    import subprocess
    import sys

    make = ("import os, sys, tempfile; tempfile.tempdir = sys.argv[1]\n"
            "from autograder.sandbox import zygote_client\n"
            "print(zygote_client.slot(), flush=True); sys.stdin.read()")
    procs = [subprocess.Popen([sys.executable, "-c", make, str(tmp_path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True) for _ in range(2)]
    killed, alive = [(p, Path(p.stdout.readline().strip())) for p in procs]
    assert killed[1].is_dir() and alive[1].is_dir()
    killed[0].send_signal(signal.SIGKILL)
    killed[0].wait()
    try:
        assert zygote_client.reap_stale_slots(tmp_path) == 1
        assert not killed[1].exists() and not list(tmp_path.glob(f"{killed[1].name}*"))
        assert alive[1].is_dir(), "the slot of a running grader was removed"
    finally:
        alive[0].communicate("")
    assert not list(tmp_path.glob("autograder-slot-*")), "a grader that exits normally removes its slot"


# one cell in a sandboxed kernel, graded from a process of its own (its Python, umask and environment are the test's)
CELL_IN_A_PROCESS = """
import json, os, sys, nbformat
if len(sys.argv) > 2:
    os.umask(int(sys.argv[2], 8))
import autograder
from autograder.grading.execute import execute
from autograder.sandbox import launch
sb = launch.Sandbox()
nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(sys.argv[1])])
with sb.work_folder() as work:
    res = execute(nb, work, sandbox=sb)
outs = res.nb.cells[0].outputs
print(json.dumps({"zygote": sb.zygote, "error": res.error, "prefix": sys.prefix, "package": autograder.__file__,
                  "text": "".join(o.get("text", "") for o in outs), "errors": [o["ename"] for o in outs if "ename" in o]}))
"""


def _cell_in_a_process(python, source: str, env: dict, cwd=None, umask: int | None = None) -> dict:
    import subprocess

    args = [str(python), "-c", CELL_IN_A_PROCESS, source] + ([oct(umask)[2:]] if umask is not None else [])
    out = subprocess.run(args, cwd=cwd, env={**os.environ, **env}, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_package_under_tmp_reaches_the_kernel_whatever_the_graders_umask(monkeypatch):
    """The formgrader grades with umask 077.  Each forked kernel gets a fresh /tmp into which the zygote binds
    again what lay below /tmp (here a checkout of the package, as in a course cloned under /tmp): the folders
    it makes for that must be traversable by the kernel's own user, whatever umask the grader has."""
    import shutil
    import sys
    import tempfile

    from autograder import PACKAGE_DIR

    monkeypatch.delenv("AUTOGRADER_ZYGOTE", raising=False)
    under_tmp = Path(tempfile.mkdtemp(prefix="checkout-", dir="/tmp"))
    try:
        shutil.copytree(PACKAGE_DIR, under_tmp / "autograder", ignore=shutil.ignore_patterns("__pycache__"))
        cell = "import autograder; print('read', len(open(autograder.__file__).read()), autograder.__file__)"
        ran = _cell_in_a_process(sys.executable, cell, {"PYTHONPATH": str(under_tmp)}, cwd=under_tmp, umask=0o077)
        package = f"{under_tmp}/autograder/__init__.py"
        assert ran["package"] == package and ran["zygote"] and ran["error"] is None, ran
        assert ran["text"].startswith("read ") and ran["text"].rstrip().endswith(package) and ran["errors"] == [], ran
    finally:
        shutil.rmtree(under_tmp, ignore_errors=True)


@pytest.mark.parametrize("zygote", ["1", "0"])
def test_a_python_reached_through_a_link_starts_its_kernels(zygote):
    """A virtual environment reached through a link (``.venv -> /elsewhere/env``) is bound where it is and where it
    is spelled: the kernel is started, and finds its packages, by the spelled path."""
    import shutil
    import sys
    import tempfile

    linked = Path(tempfile.mkdtemp(prefix="linked-", dir="/tmp"))
    try:
        (linked / "env").symlink_to(Path(sys.prefix).resolve())
        python = linked / "env" / "bin" / Path(sys.executable).name
        ran = _cell_in_a_process(python, "import sys; print(sys.prefix)", {"AUTOGRADER_ZYGOTE": zygote})
        assert ran["prefix"] == str(linked / "env") and ran["error"] is None, ran
        assert ran["text"] == f"{linked / 'env'}\n", ran
    finally:
        shutil.rmtree(linked, ignore_errors=True)
