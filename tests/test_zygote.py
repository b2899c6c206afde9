"""Kernels forked by the zygote: isolated from the zygote and from each other.

One notebook tries to outlive its run and to reach the zygote (a daemon process, files in
/tmp and /dev/shm, a System V shared memory segment, signals to the zygote, its environment and
its stdin); the next notebook, forked by the same zygote, must find none of it.
"""

from __future__ import annotations

import json
import os
import tempfile
import time

import nbformat
import pytest

from autograder import sandbox
from autograder.execute import execute

pytestmark = pytest.mark.skipif(not sandbox.available(), reason="the sandbox needs bubblewrap and root")

PLANT = r'''
import ctypes, json, os, signal, subprocess, sys, time
report = {}
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
    sb = sandbox.default_sandbox()
    work = tempfile.mkdtemp(dir=sb.tmp_parent())
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
    start = time.monotonic()
    res = execute(nb, work, sandbox=sb)
    assert res.error is None, res.error
    text = "".join(o.get("text", "") for o in res.nb.cells[0].outputs if o.get("output_type") == "stream")
    return json.loads(text.strip().splitlines()[-1]), time.monotonic() - start, sb.zygote


def test_a_kernel_cannot_reach_the_zygote_or_the_next_kernel(monkeypatch):
    monkeypatch.delenv("AUTOGRADER_ZYGOTE", raising=False)
    planted, _, forked = run(PLANT)
    assert forked, "the zygote was not used"
    assert planted["uid"] >= sandbox.UID_BASE and planted["caps"] == "0000000000000000"
    assert planted["shmget"] >= 0  # it may make one, in an IPC namespace of its own
    assert planted["kill1"] != "sent" and planted["kill2"] != "sent", planted
    for what in ("/proc/2/environ", "/proc/2/fd/0", "/proc/2/mem", "write stdin"):
        assert planted[what] in ("PermissionError", "FileNotFoundError"), (what, planted)
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
            raise sandbox.SandboxUnavailable("broken on purpose")

    sandbox.shutdown_zygote()
    monkeypatch.setattr(sandbox, "Zygote", Broken)
    monkeypatch.setattr(sandbox, "_ZYGOTE_FAILED", 0)
    seen, _, _ = run(LOOK)
    assert seen["sleepers"] == [] and seen["tmp"] == []
    assert sandbox._ZYGOTE_FAILED == os.getpid()  # and it does not try again for every kernel
