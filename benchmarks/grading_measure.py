"""How the grading benchmark measures: wall and CPU time, load, and the memory of a command's process tree."""

from __future__ import annotations

import os
import platform
import re
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


PY = sys.executable


BIN = Path(PY).parent


GIB = 1 << 30


MIB = 1 << 20


T0 = time.monotonic()


def log(msg: str) -> None:
    print(f"[{time.monotonic() - T0:7.0f}s] {msg}", flush=True)


def loadavg() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []


def child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def env_for_tools(**extra: str) -> dict:
    """The environment for the course's tools (this interpreter's first on PATH), without the caller's
    AUTOGRADER_ settings."""
    from autograder.adapters.generate import tool_env

    env = tool_env({k: v for k, v in os.environ.items() if not k.startswith("AUTOGRADER_")})
    env.update(extra)
    return env


def _proc_mem(p, pss: bool) -> tuple[int, int]:
    try:
        if pss:
            m = p.memory_full_info()
            return m.rss, getattr(m, "pss", m.rss)
        return p.memory_info().rss, 0
    except Exception:  # the process ended between listing and reading, or a zombie
        return 0, 0


class MemorySampler:
    """Peak memory of a command's process tree, split into its pool workers' trees and the rest.

    A pool worker is a child whose command line holds ``spawn_main`` (multiprocessing's spawn);
    its tree is the worker and everything below it (the sandbox, the kernel).  Without workers
    (one worker grades in the main process) the whole tree is the one worker.
    """

    def __init__(self, pid: int, interval: float = 0.25, pss_every: int = 4):
        import psutil

        self.psutil = psutil
        self.root = psutil.Process(pid)
        self.interval, self.pss_every = interval, pss_every
        self.n = 0
        self.worker_peak: dict[int, dict] = {}
        self.main_peak = {"rss": 0, "pss": 0}
        self.total_peak = {"rss": 0, "pss": 0}
        self.max_processes = 0
        self.cpu: dict[tuple[int, float], float] = {}  # (pid, start time) -> user+system seconds, last seen

    def sample(self) -> None:
        self.n += 1
        pss = bool(self.pss_every) and self.n % self.pss_every == 1
        try:
            kids = self.root.children()
        except Exception:
            return
        workers, in_worker = [], set()
        for k in kids:
            try:
                cmd = " ".join(k.cmdline())
            except Exception:
                continue
            if "spawn_main" in cmd:
                try:
                    tree = [k] + k.children(recursive=True)
                except Exception:
                    tree = [k]
                workers.append((k.pid, tree))
                in_worker.update(p.pid for p in tree)
        try:
            everything = [self.root] + self.root.children(recursive=True)
        except Exception:
            everything = [self.root]
        self.max_processes = max(self.max_processes, len(everything))
        for p in everything:
            try:
                with p.oneshot():
                    t = p.cpu_times()
                    self.cpu[(p.pid, p.create_time())] = t.user + t.system
            except Exception:
                pass
        mem = {p.pid: _proc_mem(p, pss) for p in everything}
        for pid, tree in workers:
            rss = sum(mem.get(p.pid, _proc_mem(p, pss))[0] for p in tree)
            pk = self.worker_peak.setdefault(pid, {"rss": 0, "pss": 0, "kernel_rss": 0})
            pk["rss"] = max(pk["rss"], rss)
            kern = sum(mem.get(p.pid, (0, 0))[0] for p in tree[1:])
            pk["kernel_rss"] = max(pk["kernel_rss"], kern)
            if pss:
                pk["pss"] = max(pk["pss"], sum(mem.get(p.pid, _proc_mem(p, pss))[1] for p in tree))
        rest = [pid for pid in mem if pid not in in_worker]
        self.main_peak["rss"] = max(self.main_peak["rss"], sum(mem[p][0] for p in rest))
        self.total_peak["rss"] = max(self.total_peak["rss"], sum(v[0] for v in mem.values()))
        if pss:
            self.main_peak["pss"] = max(self.main_peak["pss"], sum(mem[p][1] for p in rest))
            self.total_peak["pss"] = max(self.total_peak["pss"], sum(v[1] for v in mem.values()))

    def report(self) -> dict:
        mib = lambda b: round(b / MIB, 1)  # noqa: E731
        workers = [{k: mib(v) for k, v in w.items()} for w in self.worker_peak.values()]
        out = {"samples": self.n, "interval_s": self.interval, "max_processes": self.max_processes,
               "cpu_s": round(sum(self.cpu.values()), 2),
               "main_tree_peak_rss_mib": mib(self.main_peak["rss"]),
               "main_tree_peak_pss_mib": mib(self.main_peak["pss"]),
               "total_peak_rss_mib": mib(self.total_peak["rss"]),
               "total_peak_pss_mib": mib(self.total_peak["pss"]),
               "workers": workers}
        if workers:
            out["worker_tree_peak_rss_mib"] = max(w["rss"] for w in workers)
            out["worker_tree_peak_pss_mib"] = max(w["pss"] for w in workers)
        else:  # one worker: the main process grades, its tree is the worker
            out["worker_tree_peak_rss_mib"] = out["main_tree_peak_rss_mib"]
            out["worker_tree_peak_pss_mib"] = out["main_tree_peak_pss_mib"]
        return out


def run_measured(cmd: list[str], cwd: Path, env: dict, log_path: Path, timeout: float,
                 memory: bool = False, on_line=None, poll=None, poll_every: float = 15.0) -> dict:
    """Run ``cmd``; return wall seconds, CPU seconds of its process tree, exit status, timestamped
    output lines, and (with ``memory``) the peak memory of its process tree."""
    lines: list[tuple[float, str]] = []
    cpu0, load0 = child_cpu(), loadavg()
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    sampler = MemorySampler(proc.pid, pss_every=4 if memory else 0)

    def reader() -> None:
        buf = b""
        with open(log_path, "ab") as f:
            while True:
                chunk = os.read(proc.stdout.fileno(), 65536)
                if not chunk:
                    break
                f.write(chunk)
                f.flush()
                buf += chunk
                parts = re.split(rb"[\r\n]", buf)
                buf = parts.pop()
                for p in parts:
                    if p.strip():
                        t = time.monotonic() - start
                        text = p.decode("utf-8", "replace")
                        lines.append((t, text))
                        if on_line:
                            on_line(t, text)
            if buf.strip():
                lines.append((time.monotonic() - start, buf.decode("utf-8", "replace")))

    th = threading.Thread(target=reader, daemon=True)
    th.start()
    timed_out = False
    last_poll = start
    while proc.poll() is None:
        now = time.monotonic()
        if now - start > timeout:
            timed_out = True
            kill_tree(proc.pid)
            break
        sampler.sample()
        if poll and now - last_poll >= poll_every:
            last_poll = now
            poll(now - start)
        time.sleep(sampler.interval)
    rc = proc.wait()
    wall = time.monotonic() - start
    th.join(timeout=10)
    rep = sampler.report()
    # CPU seconds of the whole process tree, read from /proc while it ran: getrusage would miss the
    # sandboxed kernels, which are killed inside their pid namespace and never reaped by the grader
    out = {"cmd": " ".join(map(str, cmd)), "wall_s": round(wall, 2), "cpu_s": rep.pop("cpu_s"),
           "cpu_reaped_s": round(child_cpu() - cpu0, 2), "rc": rc, "timed_out": timed_out,
           "loadavg_before": load0, "loadavg_after": loadavg(), "lines": lines}
    if memory:
        out["memory"] = rep
    return out


def kill_tree(pid: int) -> None:
    import psutil

    try:
        p = psutil.Process(pid)
        procs = p.children(recursive=True) + [p]
    except Exception:
        return
    for q in procs:
        try:
            q.kill()
        except Exception:
            pass


def machine_info(sandbox_on: bool) -> dict:
    info = {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform(),
            "sandbox": sandbox_on, "loadavg_start": loadavg(),
            "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS")}
    try:
        info["mem_gib"] = round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / GIB, 1)
    except (ValueError, OSError):
        info["mem_gib"] = None
    for mod in ("torch", "nbgrader", "nbclient"):
        try:
            info[mod] = subprocess.run([PY, "-c", f"import {mod}; print({mod}.__version__)"], capture_output=True,
                                       text=True, timeout=120).stdout.strip()
        except Exception:
            info[mod] = None
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
        dirty = subprocess.run(["git", "diff", "HEAD", "--stat", "--", "autograder", "solutions", "notebooks",
                                "examples/build.py"], cwd=ROOT, capture_output=True, text=True)
        untracked = subprocess.run(["git", "ls-files", "--others", "--exclude-standard", "--", "autograder",
                                    "solutions", "notebooks"], cwd=ROOT, capture_output=True, text=True)
        info["git"] = rev.stdout.strip() + (" + uncommitted changes" if dirty.stdout.strip() or untracked.stdout.strip()
                                            else "")
        import hashlib

        h = hashlib.sha256()
        for f in sorted((ROOT / "autograder").glob("*.py")):
            h.update(f.read_bytes())
        info["autograder_sha"] = h.hexdigest()[:12]  # the grader's code as it was at this moment
    except OSError:
        pass
    return info
