"""Grading throughput: stock ``nbgrader autograde`` against ``autograder grade``, on the same corpus,
machine and run; results in ``benchmarks/results/grading.json`` and a table in ``docs/benchmarks.md``.

    .venv/bin/python benchmarks/grading.py                 # the full benchmark (tens of minutes)
    .venv/bin/python benchmarks/grading.py --quick         # one notebook, to try the script
    .venv/bin/python benchmarks/grading.py --assignments 01_tensors 02_autograd

What it does, in a private copy of the course (the repository is never touched):

1. **solutions**: runs every solution notebook once (``jupyter nbconvert --execute``, hidden
   tests in their ``local`` mode) and records its run time; a notebook that is broken (unreadable,
   out of sync with its release, or whose solution fails) is skipped with a note;
2. **corpus**: builds the sample submissions of ``examples/build.py`` (complete, partial, buggy,
   crashing) for every notebook, and adds copies under other student names until there are at
   least ``--min-submissions`` (40);
3. **plain**: executes every submitted notebook once, sequentially, with
   ``jupyter nbconvert --execute --allow-errors``, no grading: the denominator of the overhead;
4. **stock**: ``nbgrader generate_assignment`` (set-up, timed apart) then
   ``nbgrader autograde ASSIGNMENT --force`` per assignment, sequentially, with the course's
   ``nbgrader_config.py``;
5. **ours, 1 and 2 workers**: ``python -m autograder grade --submissions DIR --workers N --force``,
   each into a fresh gradebook (``gradebook.db``, ``autograded/`` and ``.autograder/`` deleted
   first, so reference runs are paid again); the memory of every worker's process tree (worker
   and its sandboxed kernel) is sampled while it runs;
6. **profile**: grades a sample again (1 worker, in this script's process with timers around
   the grader's functions) to split a job's time into interpreter and kernel start,
   ``import torch``, the notebook's cells (answer cells, test cells, the rest), nbgrader's
   database work, the sandbox and the reference run.

Wall-clock throughput is noisy on a shared machine: the load average and the CPU seconds of
each phase are recorded next to it (CPU seconds are much less sensitive to other load).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import importlib.util
import json
import os
import platform
import re
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from support import copy_course, tool_env  # noqa: E402

# Every run gets one intra-op thread per kernel: what the course's nbgrader_config.py gives stock
# nbgrader, what the grader gives each of 2 workers on 2 cores, and what the test suite uses.
# (Importing tests/conftest.py sets it too; it is set here on purpose, not by accident.)
os.environ["OMP_NUM_THREADS"] = "1"

RESULTS = ROOT / "benchmarks" / "results" / "grading.json"
DOC = ROOT / "docs" / "benchmarks.md"
START, END = "<!-- bench:start -->", "<!-- bench:end -->"
PY = sys.executable
BIN = Path(PY).parent
KINDS = {"alice": "complete", "bob": "partial", "carol": "buggy", "dave": "crashing"}
GIB = 1 << 30
MIB = 1 << 20
NODE_GIB, NODE_WORKERS = 24, 8
TARGET_RATIO, TARGET_OVERHEAD = 3.0, 1.3
SCALE = 100  # submissions per notebook in the extrapolation to a class
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
    env = tool_env()
    env.update(extra)
    return env


# ---------------------------------------------------------------- process running and memory


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


# ---------------------------------------------------------------- the course copy and the corpus


def notebook_problem(root: Path, name: str) -> str | None:
    """Why an assignment cannot be benchmarked as it stands (mid-edit), or None."""
    from autograder import course

    a = course.Assignment(name, root)
    try:
        nbs = a.notebooks()
        if not nbs:
            return "no notebook in solutions/"
        for nb in nbs:
            sol = course.read(a.solution(nb))
            exs = course.exercises(sol)
            if not exs:
                return f"{nb}: no exercises in the solution"
            if any(not e.solution_cells or e.test_cell < 0 for e in exs):
                return f"{nb}: an exercise lacks its answer or test cell"
            if not a.release(nb).is_file():
                return f"{nb}: not released (notebooks/{name}/{nb}.ipynb missing)"
            rel = course.read(a.release(nb))
            ids_sol = {course.grade_id(c) for c in sol.cells if course.grade_id(c)}
            ids_rel = {course.grade_id(c) for c in rel.cells if course.grade_id(c)}
            if ids_sol != ids_rel:
                return f"{nb}: notebooks/ is out of sync with solutions/ (graded cells differ)"
    except Exception as exc:
        return f"unreadable: {type(exc).__name__}: {str(exc)[:200]}"
    return None


def load_build_module():
    spec = importlib.util.spec_from_file_location("examples_build", ROOT / "examples" / "build.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def build_corpus(course_root: Path, out: Path, min_submissions: int) -> tuple[dict, list[dict]]:
    """examples/build.py's submissions for every notebook of ``course_root``, written to ``out``,
    plus copies under other names up to ``min_submissions``; returns (expected scores, submissions)."""
    build = load_build_module()
    for attr in ("ROOT", "OUT", "build"):
        if not hasattr(build, attr):
            raise RuntimeError(f"examples/build.py has no {attr}: update benchmarks/grading.py")
    # build() reads the course under ROOT, the answer variants under ANSWERS (the repository's
    # tests/answers, read only) and writes OUT and ROOT/examples/expected.json: all in the copy
    build.ROOT, build.OUT = course_root, out
    expected = build.build()
    subs = []
    for assignment, students in sorted(expected.items()):
        for student, notebooks in sorted(students.items()):
            for nb, score in sorted(notebooks.items()):
                subs.append({"student": student, "kind": KINDS.get(student, student), "assignment": assignment,
                             "notebook": nb, "expected": score})
    originals = list(subs)
    k = 2
    while len(subs) < min_submissions and originals:
        for s in originals:
            if len(subs) >= min_submissions:
                break
            copy = dict(s, student=f"{s['student']}{k}")
            src, dst = out / s["student"] / s["assignment"], out / copy["student"] / s["assignment"]
            if not dst.exists():
                shutil.copytree(src, dst)
            expected.setdefault(s["assignment"], {}).setdefault(copy["student"], {})[s["notebook"]] = s["expected"]
            subs.append(copy)
        k += 1
    return expected, subs


def nb_errors(path: Path) -> list[str]:
    try:
        data = json.loads(path.read_text())
    except Exception as exc:
        return [f"no executed notebook ({type(exc).__name__})"]
    errs = []
    for i, cell in enumerate(data.get("cells", [])):
        for o in cell.get("outputs", []) or []:
            if o.get("output_type") == "error":
                gid = (cell.get("metadata", {}).get("nbgrader") or {}).get("grade_id") or f"cell {i}"
                errs.append(f"{gid}: {o.get('ename')}: {str(o.get('evalue'))[:150]}")
    return errs


def nbconvert_cmd(nb: Path, out_dir: Path) -> list[str]:
    return [str(BIN / "jupyter"), "nbconvert", "--to", "notebook", "--execute", "--allow-errors",
            "--ExecutePreprocessor.timeout=300", "--output-dir", str(out_dir), str(nb)]


# ---------------------------------------------------------------- phases


def phase_solutions(work: Path, base: Path, assignments: list[str]) -> dict:
    """Run each solution notebook once, plainly (hidden tests in local mode), in a copy of the course."""
    from autograder import course

    runs = {}
    sol_course = work / "solution-runs"
    shutil.copytree(base, sol_course)
    for name in assignments:
        a = course.Assignment(name, sol_course)
        for nb in a.notebooks():
            out_dir = work / "solution-out" / name
            out_dir.mkdir(parents=True, exist_ok=True)
            log(f"solution run: {name}/{nb}")
            r = run_measured(nbconvert_cmd(a.solution(nb), out_dir), a.solution_dir,
                             env_for_tools(AUTOGRADER_COURSE_ROOT=str(sol_course)),
                             work / "logs" / f"solution-{nb}.log", timeout=1800)
            errs = nb_errors(out_dir / f"{nb}.ipynb")
            runs[nb] = {"assignment": name, "seconds": r["wall_s"], "cpu_s": r["cpu_s"], "rc": r["rc"],
                        "ok": r["rc"] == 0 and not errs, "errors": errs[:5], "loadavg_after": r["loadavg_after"]}
            log(f"  {r['wall_s']:.1f} s wall, {r['cpu_s']:.1f} s CPU, "
                f"{'ok' if runs[nb]['ok'] else 'FAILED: ' + '; '.join(errs[:2])}")
    return runs


def phase_plain(work: Path, base: Path, corpus: Path, subs: list[dict]) -> dict:
    """Execute every submitted notebook once, sequentially, no grading."""
    from autograder.submission import copy_support_files

    per = []
    load0, start = loadavg(), time.monotonic()
    for i, s in enumerate(subs, 1):
        wd = work / "plain" / s["student"] / s["assignment"]
        wd.mkdir(parents=True, exist_ok=True)
        copy_support_files(base / "notebooks" / s["assignment"], wd)  # e.g. 07's helper modules
        src = corpus / s["student"] / s["assignment"]
        copy_support_files(src, wd)
        shutil.copy(src / f"{s['notebook']}.ipynb", wd / f"{s['notebook']}.ipynb")
        r = run_measured(nbconvert_cmd(wd / f"{s['notebook']}.ipynb", wd / "out"), wd, env_for_tools(),
                         work / "logs" / f"plain-{s['student']}-{s['notebook']}.log", timeout=1800, memory=True)
        per.append({"student": s["student"], "assignment": s["assignment"], "notebook": s["notebook"],
                    "seconds": r["wall_s"], "cpu_s": r["cpu_s"], "rc": r["rc"],
                    "peak_rss_mib": r["memory"]["total_peak_rss_mib"],
                    "peak_pss_mib": r["memory"]["total_peak_pss_mib"]})
        log(f"plain {i}/{len(subs)}: {s['student']}/{s['notebook']} {r['wall_s']:.1f} s (rc {r['rc']})")
    wall = time.monotonic() - start
    return {"wall_s": round(wall, 2), "cpu_s": round(sum(x["cpu_s"] for x in per), 2), "loadavg_before": load0,
            "loadavg_after": loadavg(), "per_submission": per}


def stock_scores(db: Path) -> dict:
    out: dict = {}
    if not db.is_file():
        return out
    con = sqlite3.connect(db)
    try:
        rows = con.execute("""
            SELECT student.id, assignment.name, notebook.name, grade.auto_score
            FROM grade
            JOIN submitted_notebook ON grade.notebook_id = submitted_notebook.id
            JOIN notebook ON submitted_notebook.notebook_id = notebook.id
            JOIN submitted_assignment ON submitted_notebook.assignment_id = submitted_assignment.id
            JOIN assignment ON submitted_assignment.assignment_id = assignment.id
            JOIN student ON submitted_assignment.student_id = student.id""").fetchall()
    finally:
        con.close()
    for sid, a, nb, s in rows:
        key = f"{sid}/{a}/{nb}"
        out[key] = out.get(key, 0.0) + (s or 0.0)
    return out


def phase_stock(work: Path, base: Path, corpus: Path, assignments: list[str]) -> dict:
    course_dir = work / "stock"
    shutil.copytree(base, course_dir)
    env = env_for_tools()
    setup = {}
    for name in assignments:
        r = run_measured([PY, "-m", "nbgrader", "generate_assignment", name, "--force"], course_dir, env,
                         work / "logs" / f"stock-generate-{name}.log", timeout=600)
        setup[name] = r["wall_s"]
    shutil.copytree(corpus, course_dir / "submitted")
    per, mem = {}, []
    load0, start = loadavg(), time.monotonic()
    for name in assignments:
        log(f"stock nbgrader autograde {name}")

        def on_line(t, text, name=name):
            if "Autograding" in text and ".ipynb" in text:
                log(f"  {name} +{t:.0f}s: {text.split('Autograding')[-1].strip()[-80:]}")

        r = run_measured([PY, "-m", "nbgrader", "autograde", name, "--force"], course_dir, env,
                         work / "logs" / f"stock-autograde-{name}.log", timeout=4 * 3600, memory=True,
                         on_line=on_line)
        per[name] = {"wall_s": r["wall_s"], "cpu_s": r["cpu_s"], "rc": r["rc"], "timed_out": r["timed_out"],
                     "peak_rss_mib": r["memory"]["total_peak_rss_mib"],
                     "errors": [t for _, t in r["lines"] if "ERROR" in t][:10]}
        mem.append(r["memory"])
        log(f"  {name}: {r['wall_s']:.1f} s (rc {r['rc']})")
    wall = time.monotonic() - start
    return {"wall_s": round(wall, 2), "cpu_s": round(sum(x["cpu_s"] for x in per.values()), 2),
            "setup_generate_s": setup, "wall_with_setup_s": round(wall + sum(setup.values()), 2),
            "loadavg_before": load0, "loadavg_after": loadavg(), "per_assignment": per,
            "tree_peak_rss_mib": max((m["total_peak_rss_mib"] for m in mem), default=0),
            "scores": stock_scores(course_dir / "gradebook.db")}


def ours_scores(course_dir: Path, since: float) -> tuple[dict, dict, dict, list[str]]:
    scores, seconds, finished, errors = {}, {}, {}, []
    for p in sorted((course_dir / ".autograder" / "results").glob("*/*/*.json")):
        try:
            r = json.loads(p.read_text())["result"]
        except Exception:
            continue
        key = f"{r['student']}/{r['assignment']}/{r['notebook']}"
        scores[key] = sum(e["score"] for e in r["exercises"])
        seconds[key] = round(r.get("seconds") or 0.0, 2)
        finished[key] = round(p.stat().st_mtime - since, 2)  # when the writer saved it, from the command's start
        if r.get("error"):
            errors.append(f"{r['student']}/{r['notebook']}: {r['error'][:120]}")
    return scores, seconds, finished, errors


def timeline(lines: list[tuple[float, str]], wall: float) -> dict:
    """Phases of one ``autograder grade`` run, from its output lines and the time they arrived.

    The reference runs go through the worker pool like the submissions, so they overlap each
    other and the grading; each reports its own duration (``reference ready: NB in S s``)."""
    starts = [t for t, text in lines if "reference run:" in text]
    ready = [(m.group(1), float(m.group(2))) for _, text in lines
             for m in [re.search(r"reference ready: (\S+) in ([\d.]+) s", text)] if m]
    done = next((t for t, text in lines if re.match(r"graded \d+ notebook", text.strip())), None)
    loop = next((float(m.group(1)) for _, text in lines
                 for m in [re.search(r"graded \d+ notebook\(s\) in ([\d.]+) s", text)] if m), None)
    out: dict = {}
    if starts:
        out["startup_and_gradebook_setup_s"] = round(min(starts), 2)
    if ready:
        out["reference_runs_s"] = {nb: round(sec, 2) for nb, sec in ready}
        out["reference_total_s"] = round(sum(sec for _, sec in ready), 2)
    if loop is not None:
        out["grading_loop_s"] = loop  # from the first reference run to the last result
    if done is not None:
        out["after_loop_s"] = round(wall - done, 2)
    return out


def phase_ours(work: Path, base: Path, corpus: Path, workers: int, n_subs: int) -> dict:
    course_dir = work / "ours"
    if not course_dir.exists():
        shutil.copytree(base, course_dir)
    for p in ("gradebook.db", "autograded", ".autograder", "feedback"):  # a fresh gradebook: nothing reused
        q = course_dir / p
        if q.is_dir():
            shutil.rmtree(q)
        elif q.exists():
            q.unlink()
    log(f"ours: autograder grade --workers {workers}")

    def on_line(t, text):
        if "reference run:" in text or "grader error" in text:
            log(f"  +{t:.0f}s {text.strip()[:110]}")

    def poll(t):
        n = len(list((course_dir / ".autograder" / "results").glob("*/*/*.json")))
        log(f"  +{t:.0f}s graded {n}/{n_subs}")

    since = time.time()
    r = run_measured([PY, "-m", "autograder", "grade", "--submissions", str(corpus), "--workers", str(workers),
                      "--force"], course_dir, env_for_tools(), work / "logs" / f"ours-{workers}.log",
                     timeout=4 * 3600, memory=True, on_line=on_line, poll=poll, poll_every=30)
    scores, seconds, finished, errors = ours_scores(course_dir, since)
    log(f"  {workers} worker(s): {r['wall_s']:.1f} s (rc {r['rc']}), {len(scores)} results")
    return {"wall_s": r["wall_s"], "cpu_s": r["cpu_s"], "rc": r["rc"], "timed_out": r["timed_out"],
            "loadavg_before": r["loadavg_before"], "loadavg_after": r["loadavg_after"],
            "timeline": timeline(r["lines"], r["wall_s"]), "kernel_run_s_sum": round(sum(seconds.values()), 2),
            "kernel_run_s": seconds, "finished_at_s": finished,
            "memory": r["memory"], "scores": scores, "grader_errors": errors[:20],
            "tail": [t for _, t in r["lines"][-3:]]}


def phase_profile(work: Path, base: Path, corpus: Path, students: list[str]) -> dict:
    course_dir = work / "profile"
    shutil.copytree(base, course_dir)
    out = work / "profile.json"
    cmd = [PY, str(Path(__file__).resolve()), "_profile", "--course", str(course_dir), "--submissions",
           str(corpus), "--out", str(out)] + [x for s in students for x in ("--student", s)]
    log(f"profile: grading {', '.join(students)} with timers (1 worker, in-process)")

    def on_line(t, text):
        if text.startswith("profile:"):
            log("  " + text[:120])

    r = run_measured(cmd, ROOT, env_for_tools(), work / "logs" / "profile.log", timeout=4 * 3600, on_line=on_line)
    if not out.is_file():
        return {"error": f"profile run failed (rc {r['rc']}): " + " | ".join(t for _, t in r["lines"][-5:])}
    data = json.loads(out.read_text())
    data["wall_s"] = r["wall_s"]
    return data


# ---------------------------------------------------------------- the profiled grading run (a subprocess)


class Acc:
    """Time accumulators for the job (or reference run) being graded."""

    def __init__(self):
        self.stack: list[dict] = []
        self.jobs: list[dict] = []
        self.refs: list[dict] = []
        self.writes: dict[str, dict] = {}
        self.registration: list[dict] = []
        self.other: dict[str, float] = {}

    def add(self, phase: str, seconds: float) -> None:
        target = self.stack[-1]["phases"] if self.stack else self.other
        target[phase] = target.get(phase, 0.0) + seconds

    @contextlib.contextmanager
    def unit(self, kind: str, labels: dict):
        """A unit of work the grader announces (autograder.timing.unit)."""
        if kind in ("job", "reference"):
            with self.scope(dict(labels), self.jobs if kind == "job" else self.refs):
                yield
        elif kind == "write":
            record = {"phases": self.writes.setdefault(f"{labels['student']}/{labels['notebook']}", {})}
            self.stack.append(record)
            try:
                yield
            finally:
                self.stack.pop()
        elif kind == "registration":
            t = time.perf_counter()
            try:
                yield
            finally:
                self.registration.append({"assignment": f"{len(labels.get('assignments', []))} assignments at once",
                                          "seconds": time.perf_counter() - t})
        else:
            yield

    @contextlib.contextmanager
    def scope(self, record: dict, into: list):
        record.setdefault("phases", {})
        self.stack.append(record)
        t = time.perf_counter()
        try:
            yield record
        finally:
            record["total"] = time.perf_counter() - t
            self.stack.pop()
            into.append(record)


def install_timers(acc: "Acc") -> list[str]:
    """Listen to the grader's own timing hook (:mod:`autograder.timing`); nothing is patched."""
    from autograder import timing

    timing.install(acc)
    return []


def micro(cmd: list[str], reps: int = 3, env: dict | None = None) -> dict:
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        subprocess.run(cmd, env=env or env_for_tools(), capture_output=True, timeout=600)
        times.append(time.perf_counter() - t)
    return {"min_s": round(min(times), 3), "median_s": round(statistics.median(times), 3)}


def profile_main(args) -> int:
    """The ``_profile`` subcommand: grade with timers, then measure start-up costs apart."""
    course_dir = Path(args.course).resolve()
    os.chdir(course_dir)
    os.environ["AUTOGRADER_COURSE_ROOT"] = str(course_dir)
    from autograder import batch, cli

    acc = Acc()
    missing = install_timers(acc)
    argv = ["grade", "--submissions", args.submissions, "--workers", "1", "--force"]
    for s in args.student or []:
        argv += ["--student", s]
    gargs = cli.build_parser().parse_args(argv)
    print("profile: grading", flush=True)
    t = time.perf_counter()
    rc = batch.grade_command(gargs)
    wall = time.perf_counter() - t
    for job in acc.jobs:
        job["phases"].update(acc.writes.get(f"{job['student']}/{job['notebook']}", {}))

    print("profile: start-up costs", flush=True)
    import nbformat

    from autograder import execute as ex_mod
    from autograder import sandbox as sb_mod

    kernel = {}
    kinds = [("unsandboxed", lambda: None, "1")]
    if sb_mod.available():
        kinds += [("sandboxed, a sandbox per kernel", sb_mod.Sandbox, "0"),
                  ("sandboxed, forked from the zygote", sb_mod.Sandbox, "1")]
    for label, make, zygote in kinds:
        times = []
        os.environ["AUTOGRADER_ZYGOTE"] = zygote
        for _ in range(3):
            sb = make()
            with ex_mod.work_folder(sb, "profile-") as tmp:
                nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("pass")])
                scratch = {"phases": {}}
                with acc.scope(scratch, []):
                    ex_mod.execute(nb, tmp, sandbox=sb)
                times.append(scratch["phases"])
        kernel[label] = {k: round(statistics.median([t.get(k, 0.0) for t in times]), 3)
                         for k in sorted({k for t in times for k in t})}
    startup = {
        "python -c pass": micro([PY, "-c", "pass"]),
        "python -c 'import torch'": micro([PY, "-c", "import torch"]),
        "grader imports (autograder.batch, sandbox, nbclient, nbgrader.api)":
            micro([PY, "-c", "import autograder.batch, autograder.sandbox, nbclient, nbgrader.api"]),
        "python -m autograder --help": micro([PY, "-m", "autograder", "--help"]),
        "jupyter nbconvert --version": micro([str(BIN / "jupyter"), "nbconvert", "--version"]),
    }
    Path(args.out).write_text(json.dumps({
        "rc": rc, "grade_command_s": round(wall, 2), "not_timed": missing,
        "registration": acc.registration, "references": acc.refs, "jobs": acc.jobs,
        "outside_jobs": acc.other, "kernel_start_alone": kernel, "startup": startup}, indent=1))
    return 0


# ---------------------------------------------------------------- summary, JSON and the doc


def summarize(res: dict) -> dict:
    runs, n = res["runs"], res["corpus"]["submissions"]
    plain = runs.get("plain", {}).get("wall_s")
    plain_cpu = runs.get("plain", {}).get("cpu_s")
    stock = runs.get("stock", {}).get("wall_s")
    expected = res["corpus"]["expected_flat"]
    out = {}
    if runs.get("stock", {}).get("wall_with_setup_s"):
        runs = dict(runs, stock_setup={"wall_s": runs["stock"]["wall_with_setup_s"]})
    for mode in ("plain", "stock", "stock_setup", "ours_1", "ours_2"):
        r = runs.get(mode)
        if not r or not r.get("wall_s"):
            continue
        s = {"wall_s": r["wall_s"], "cpu_s": r.get("cpu_s"),
             "submissions_per_minute": round(n / (r["wall_s"] / 60), 2)}
        if stock and mode != "plain":
            s["ratio_to_stock"] = round(stock / r["wall_s"], 2)
        if plain:
            s["overhead_vs_plain"] = round(r["wall_s"] / plain, 2)
        if plain_cpu and r.get("cpu_s"):
            s["cpu_overhead_vs_plain"] = round(r["cpu_s"] / plain_cpu, 2)
        if "scores" in r:
            got = r["scores"]
            wrong = {k: {"got": got.get(k), "expected": v} for k, v in expected.items() if got.get(k) != v}
            s["scores_as_expected"] = f"{len(expected) - len(wrong)}/{len(expected)}"
            s["score_mismatches"] = wrong
        tl = r.get("timeline") or {}
        if mode.startswith("ours") and "reference_total_s" in tl:
            # fixed cost per run (start-up, gradebook registration, the reference runs, shared by the pool) and
            # the rest per submission: the corpus has only 4 submissions per notebook, a class has more
            workers = 2 if mode == "ours_2" else 1  # the reference runs share the pool
            fixed = (tl.get("startup_and_gradebook_setup_s") or 0) + tl["reference_total_s"] / workers
            s["fixed_s"] = round(fixed, 1)
            s["per_submission_s"] = round((r["wall_s"] - fixed) / n, 2)
        out[mode] = s
    n_nb = len(res.get("assignments") or []) or 1
    if stock and n:
        big = SCALE * n_nb
        for mode in ("ours_1", "ours_2"):
            if "per_submission_s" in out.get(mode, {}):
                t = out[mode]["fixed_s"] + out[mode]["per_submission_s"] * big
                out[mode][f"ratio_to_stock_at_{SCALE}_per_notebook"] = round(stock / n * big / t, 2)
    return out


def memory_verdict(res: dict) -> dict:
    m = res["runs"].get("ours_2", {}).get("memory") or res["runs"].get("ours_1", {}).get("memory")
    if not m:
        return {}
    w_rss, w_pss = m["worker_tree_peak_rss_mib"], m["worker_tree_peak_pss_mib"]
    two = bool(res["runs"].get("ours_2", {}).get("memory"))
    main = m["main_tree_peak_rss_mib"] if two else 0.0  # the writer (references and submissions run in the workers)
    need_rss = (NODE_WORKERS * w_rss + main) / 1024
    need_pss = (NODE_WORKERS * w_pss + (m["main_tree_peak_pss_mib"] if two else 0.0)) / 1024
    # PSS decides: summing RSS counts the pages of torch's libraries, shared by every kernel, once per process
    return {"worker_tree_peak_rss_mib": w_rss, "worker_tree_peak_pss_mib": w_pss, "main_peak_rss_mib": main,
            "for_8_workers_gib_rss": round(need_rss, 1), "for_8_workers_gib_pss": round(need_pss, 1),
            "node_gib": NODE_GIB, "fits": need_pss <= NODE_GIB, "fits_even_by_rss": need_rss <= NODE_GIB}


def breakdown(profile: dict) -> dict:
    """Mean seconds per job by phase, and the reference runs, from the profiled run."""
    if not profile or "jobs" not in profile or not profile["jobs"]:
        return {}
    jobs = profile["jobs"]
    keys = sorted({k for j in jobs for k in j["phases"]})
    per_job = {k: round(statistics.mean(j["phases"].get(k, 0.0) for j in jobs), 3) for k in keys}
    per_job["job total (run_job)"] = round(statistics.mean(j["total"] for j in jobs), 3)
    refs = profile.get("references", [])
    ref_total = {r["notebook"]: round(r["total"], 2) for r in refs}
    ref_keys = sorted({k for r in refs for k in r["phases"]})
    ref_mean = {k: round(statistics.mean(r["phases"].get(k, 0.0) for r in refs), 3) for k in ref_keys} if refs else {}
    by_kind: dict = {}
    for j in jobs:
        by_kind.setdefault(KINDS.get(j["student"], j["student"]), []).append(j["total"])
    return {"jobs_profiled": len(jobs), "per_job_mean_s": per_job,
            "per_job_by_kind_mean_s": {k: round(statistics.mean(v), 2) for k, v in by_kind.items()},
            "reference_run_s": ref_total, "reference_mean_phases_s": ref_mean,
            "gradebook_registration_s": {r["assignment"]: round(r["seconds"], 2)
                                         for r in profile.get("registration", [])},
            "kernel_start_alone_s": profile.get("kernel_start_alone"), "startup_s": profile.get("startup"),
            "grade_command_s": profile.get("grade_command_s"), "not_timed": profile.get("not_timed")}


def fmt(x, nd=1, suffix=""):
    return "–" if x is None else f"{x:.{nd}f}{suffix}"


def render(res: dict) -> str:
    s, m, b, sol = res["summary"], res.get("memory", {}), res.get("breakdown", {}), res.get("solution_runs", {})
    runs = res["runs"]
    L = [START, "",
         f"Generated by `benchmarks/grading.py` on {res['generated'][:16].replace('T', ' ')} UTC: "
         f"{res['machine']['cpus']} CPU cores, {res['machine']['mem_gib']} GiB, sandbox "
         f"{'on' if res['machine']['sandbox'] else 'off'}; {res['corpus']['submissions']} submissions "
         f"({', '.join(f'{v} {k}' for k, v in res['corpus']['by_kind'].items())}) over "
         f"{len(res['assignments'])} notebooks. Load average (1 min) before each phase: "
         + ", ".join(f"{k} {runs[k].get('loadavg_before', ['?'])[0]}" for k in ("plain", "stock", "ours_1", "ours_2")
                     if k in runs) + ".", ""]
    if res.get("skipped"):
        L += ["Skipped: " + "; ".join(f"`{x['assignment']}` ({x['reason']})" for x in res["skipped"]), ""]
    names = {"plain": "plain execution (`nbconvert --execute`, sequential)",
             "stock": "stock `nbgrader autograde`",
             "stock_setup": "stock, counting `nbgrader generate_assignment` into its fresh gradebook",
             "ours_1": "`autograder grade --workers 1`",
             "ours_2": "`autograder grade --workers 2`"}
    L += ["| run | wall (s) | submissions/min | × stock | overhead (wall ÷ plain) | CPU (s) | CPU ÷ plain | scores as expected |",
          "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for k in ("plain", "stock", "stock_setup", "ours_1", "ours_2"):
        if k in s:
            r = s[k]
            L.append(f"| {names[k]} | {fmt(r['wall_s'])} | {fmt(r['submissions_per_minute'], 2)} | "
                     f"{fmt(r.get('ratio_to_stock'), 2, '×')} | {fmt(r.get('overhead_vs_plain'), 2, '×')} | "
                     f"{fmt(r.get('cpu_s'))} | {fmt(r.get('cpu_overhead_vs_plain'), 2, '×')} | "
                     f"{r.get('scores_as_expected', '–')} |")
    L.append("")
    short = {"stock": "stock", "ours_1": "ours 1 worker", "ours_2": "ours 2 workers"}
    bad: dict = {}
    for mode in short:
        for k in (runs.get(mode, {}).get("score_mismatches_all") or s.get(mode, {}).get("score_mismatches") or {}):
            student, _, nb = k.split("/")
            bad.setdefault(nb, {}).setdefault(short[mode], []).append(student)
    if bad:
        L += ["Scores not as `examples/expected.json` says (who): " + "; ".join(
            f"{nb}: " + ", ".join(f"{m} ({' '.join(sorted(v))})" for m, v in modes.items())
            for nb, modes in sorted(bad.items())) +
              ". A run that loses points it should not also skips work, so its timings there flatter it.", ""]
    t = res.get("targets", {})
    if t:
        L += ["| target | measured | |", "|---|---|---|"]
        for row in t.values():
            L.append(f"| {row['target']} | {row['measured']} | {'met' if row['met'] else '**missed**'} |")
        L.append("")
    if m:
        L += [f"Peak memory (2-worker run): one worker's process tree (worker, its zygote and the kernel forked from it) "
              f"{m['worker_tree_peak_rss_mib']:.0f} MiB RSS ({m['worker_tree_peak_pss_mib']:.0f} MiB PSS); "
              f"the grader's main process tree (the gradebook writer) "
              f"{m['main_peak_rss_mib']:.0f} MiB RSS. Eight workers and the grader: "
              f"{m['for_8_workers_gib_pss']:.1f} GiB by PSS, {m['for_8_workers_gib_rss']:.1f} GiB summing RSS "
              f"(an upper bound: it counts torch's shared libraries once per process), of {m['node_gib']} GiB.", ""]
    ext = [(mode, s[mode]) for mode in ("ours_1", "ours_2") if "fixed_s" in s.get(mode, {})]
    if ext:
        L += ["Fixed cost per run and cost per submission (the rest of the wall time, divided evenly): " + "; ".join(
            f"{names[m]}: {r['fixed_s']:.0f} s fixed + {r['per_submission_s']:.1f} s per submission" for m, r in ext) +
              f"; stock: {s['stock']['wall_s'] / res['corpus']['submissions']:.1f} s per submission. "
              f"With {SCALE} submissions per notebook instead of "
              f"{res['corpus']['submissions'] / max(1, len(res.get('assignments') or [1])):.0f}, that model gives "
              + ", ".join(f"{r.get(f'ratio_to_stock_at_{SCALE}_per_notebook', 0):.2f}× stock for {names[m]}"
                          for m, r in ext) + " (an extrapolation, not a measurement).", ""]
    for mode in ("ours_1", "ours_2"):
        tl = runs.get(mode, {}).get("timeline")
        if tl:
            L.append(f"{names[mode]}: start-up and gradebook set-up {fmt(tl.get('startup_and_gradebook_setup_s'))} s, "
                     f"reference runs (in the worker pool, summed) {fmt(tl.get('reference_total_s'))} s, "
                     f"grading loop {fmt(tl.get('grading_loop_s'))} s; sum of the kernel runs "
                     f"{fmt(runs[mode].get('kernel_run_s_sum'))} s.")
    L.append("")
    if b:
        pj = b["per_job_mean_s"]
        total = pj.get("job total (run_job)") or 1
        L += [f"Where one grading job's time goes (mean of {b['jobs_profiled']} profiled jobs, 1 worker):", "",
              "| phase | s per job | share |", "|---|---:|---:|"]
        order = sorted((k for k in pj if k != "job total (run_job)" and k != "execute (kernel run, total)"),
                       key=lambda k: -pj[k])
        for k in order:
            L.append(f"| {k} | {pj[k]:.2f} | {100 * pj[k] / total:.0f}% |")
        L.append(f"| **job total** (execute alone: {pj.get('execute (kernel run, total)', 0):.2f}) | "
                 f"**{total:.2f}** | |")
        L.append("")
        ref = b.get("reference_run_s", {})
        reg = b.get("gradebook_registration_s", {})
        L.append(f"Once per notebook and run: the reference run "
                 f"({', '.join(f'{k} {v:.1f} s' for k, v in ref.items())}); once per run, registering the "
                 f"assignments in the gradebook (nbgrader's `generate_assignment`, all in one process: "
                 f"{', '.join(f'{k} {v:.1f} s' for k, v in reg.items())}).")
        st = b.get("startup_s") or {}
        ks = b.get("kernel_start_alone_s") or {}
        if st:
            L.append("Start-up costs measured alone (median of 3): " + "; ".join(
                f"{k} {v['median_s']:.2f} s" for k, v in st.items()) + ".")
        if ks:
            L.append("A kernel running one `pass` cell: " + "; ".join(
                f"{lab}: start {v.get('kernel start (sandbox + ipykernel ready)', 0):.2f} s, "
                f"import torch {v.get('import torch (in the kernel)', 0):.2f} s, "
                f"shutdown {v.get('kernel shutdown', 0):.2f} s" for lab, v in ks.items()) + ".")
        L.append("")
    if sol:
        L += ["Per notebook, in seconds: its solution run once plainly (`nbconvert --execute`, hidden tests in "
              "their local mode); the grader's reference run (record mode, in the profiled run); and its "
              f"{res['corpus']['submissions'] / max(1, len(sol)):.0f} submissions run plainly, graded by stock "
              "nbgrader, and graded by `autograder grade --workers 1` (its reference run plus its jobs, from the "
              "times the results were saved):", "",
              "| notebook | solution, plain | reference run | submissions: plain | stock | ours, 1 worker "
              "| peak MiB, plain run (RSS / PSS) | scores as expected (stock, ours) |",
              "|---|---:|---:|---:|---:|---:|---:|---|"]
        for row in per_notebook(res):
            L.append(f"| {row['notebook']} | {fmt(row['solution_plain_s'])} | {fmt(row['reference_s'])} | "
                     f"{fmt(row['plain_s'])} | {fmt(row['stock_s'])} | {fmt(row['ours_1_s'])} | "
                     f"{fmt(row.get('plain_peak_rss_mib'), 0)} / {fmt(row.get('plain_peak_pss_mib'), 0)} | "
                     f"{row['scores_stock']}, {row['scores_ours']}{'' if row['solution_ok'] else ' (solution failed)'} |")
        L.append("")
    L.append(END)
    return "\n".join(L)


def per_notebook(res: dict) -> list[dict]:
    runs, sol = res["runs"], res.get("solution_runs", {})
    b = res.get("breakdown") or {}
    expected = res["corpus"]["expected_flat"]
    o1 = runs.get("ours_1", {})
    tl = o1.get("timeline", {})
    # 1 worker grades one job at a time: a job's wall time is the gap since the previous result was saved
    order = sorted(o1.get("finished_at_s", {}).items(), key=lambda kv: kv[1])
    job_wall, prev = {}, None
    loop_start = (tl.get("startup_and_gradebook_setup_s") or 0) + (tl.get("reference_total_s") or 0)
    for key, t in order:
        job_wall[key] = t - (prev if prev is not None else loop_start)
        prev = t
    rows = []
    for nb, r in sol.items():
        a = r["assignment"]
        keys = [k for k in expected if k.endswith(f"/{a}/{nb}")]
        plain_runs = [x for x in runs.get("plain", {}).get("per_submission", []) if x["notebook"] == nb]
        plain = [x["seconds"] for x in plain_runs]
        stock = runs.get("stock", {}).get("per_assignment", {}).get(a, {}).get("wall_s")
        ref_tl = tl.get("reference_runs_s", {}).get(f"{a}/{nb}")
        ours = (ref_tl + sum(job_wall.get(k, 0) for k in keys)) if ref_tl is not None and job_wall else None

        def ok(mode):
            got = runs.get(mode, {}).get("scores")
            if got is None or not keys:
                return "–"
            return f"{sum(got.get(k) == expected[k] for k in keys)}/{len(keys)}"

        rows.append({"notebook": nb, "assignment": a, "solution_plain_s": r["seconds"], "solution_ok": r["ok"],
                     "reference_s": (b.get("reference_run_s") or {}).get(nb), "plain_s": sum(plain) if plain else None,
                     "stock_s": stock, "ours_1_s": ours, "scores_stock": ok("stock"), "scores_ours": ok("ours_1"),
                     "plain_peak_rss_mib": max((x.get("peak_rss_mib") or 0 for x in plain_runs), default=None) or None,
                     "plain_peak_pss_mib": max((x.get("peak_pss_mib") or 0 for x in plain_runs), default=None) or None})
    return rows


DOC_SKELETON = """# Grading benchmark

`benchmarks/grading.py` ({method}).

{section}
"""


def write_doc(path: Path, section: str) -> None:
    if path.is_file():
        text = path.read_text()
        if START in text and END in text:
            text = text[:text.index(START)] + section + text[text.index(END) + len(END):]
        else:
            text = text.rstrip() + "\n\n" + section + "\n"
    else:
        text = DOC_SKELETON.format(method="see its docstring", section=section)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def targets(res: dict) -> dict:
    s, m = res["summary"], res.get("memory", {})
    out = {}
    if "stock" in s and ("ours_1" in s or "ours_2" in s):
        r2 = s.get("ours_2", {}).get("ratio_to_stock")
        out["throughput"] = {"target": f"≥ {TARGET_RATIO:g}× stock nbgrader's throughput",
                             "measured": f"{fmt(r2, 2, '×')} at 2 workers, "
                                         f"{fmt(s.get('ours_1', {}).get('ratio_to_stock'), 2, '×')} at 1",
                             "met": (r2 or 0) >= TARGET_RATIO}
    o1 = s.get("ours_1", {}).get("overhead_vs_plain")
    if o1 is not None:
        o2 = s.get("ours_2", {}).get("overhead_vs_plain")
        out["overhead"] = {"target": f"overhead ≤ {TARGET_OVERHEAD:g}× plain execution",
                           "measured": f"{o1:.2f}× at 1 worker (like for like); {fmt(o2, 2, '×')} at 2 workers "
                                       f"against sequential plain execution",
                           "met": o1 <= TARGET_OVERHEAD}
    if m:
        out["memory"] = {"target": f"{NODE_WORKERS} workers fit in {NODE_GIB} GiB",
                         "measured": f"peak per worker tree {m['worker_tree_peak_pss_mib']:.0f} MiB PSS "
                                     f"({m['worker_tree_peak_rss_mib']:.0f} MiB RSS) → {NODE_WORKERS} workers and "
                                     f"the grader: {m['for_8_workers_gib_pss']:.1f} GiB by PSS "
                                     f"({m['for_8_workers_gib_rss']:.1f} GiB summing RSS)",
                         "met": bool(m["fits"])}
    return out


# ---------------------------------------------------------------- main


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--assignments", nargs="*", default=None, help="only these assignments (default: all)")
    p.add_argument("--quick", action="store_true",
                   help="one notebook (the first, or --assignments), no padding copies: to try the script")
    p.add_argument("--min-submissions", type=int, default=None,
                   help="pad the corpus with copies under other names up to this many (default 40; 0 with --quick)")
    p.add_argument("--skip", default="", help="comma-separated phases to skip: solutions,plain,stock,ours1,ours2,profile")
    p.add_argument("--profile-students", default=None,
                   help="students graded in the profiled run (default: alice; every student with --quick)")
    p.add_argument("--out", default=None, help="results JSON (default: benchmarks/results/grading.json for a full "
                                               "run, a temporary file otherwise)")
    p.add_argument("--doc", default=None, help="markdown file to update (default: docs/benchmarks.md for a full run, "
                                               "none otherwise)")
    p.add_argument("--keep", action="store_true", help="keep the working folder (logs, gradebooks) and print it")
    p.add_argument("--render", metavar="JSON", default=None,
                   help="only rewrite the table of --doc (default docs/benchmarks.md) from a results file")
    if argv is None:
        argv = sys.argv[1:]
    if argv[:1] == ["_profile"]:
        q = argparse.ArgumentParser()
        q.add_argument("_profile")
        q.add_argument("--course", required=True)
        q.add_argument("--submissions", required=True)
        q.add_argument("--out", required=True)
        q.add_argument("--student", action="append")
        return profile_main(q.parse_args(argv))
    args = p.parse_args(argv)
    if args.render:
        res = json.loads(Path(args.render).read_text())
        res["summary"] = summarize(res)
        res["memory"] = memory_verdict(res)
        res["targets"] = targets(res)
        write_doc(Path(args.doc) if args.doc else DOC, render(res))
        return 0
    full = not args.quick and not args.assignments and not args.skip
    out_path = Path(args.out) if args.out else (RESULTS if full else
                                                Path(tempfile.gettempdir()) / "grading-benchmark.json")
    doc_path = Path(args.doc) if args.doc else (DOC if full else None)
    skip = {x.strip() for x in args.skip.split(",") if x.strip()}
    min_subs = args.min_submissions if args.min_submissions is not None else (0 if args.quick else 40)

    from autograder import course, sandbox

    work = Path(tempfile.mkdtemp(prefix="grading-bench-"))
    (work / "logs").mkdir()
    log(f"working folder {work}")
    res: dict = {"generated": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                 "machine": machine_info(sandbox.available()), "options": vars(args), "skipped": [], "runs": {},
                 "notes": []}
    try:
        base = copy_course(work / "base")
        shutil.rmtree(base / "examples" / "submissions", ignore_errors=True)
        every = [a.name for a in course.assignments(base)]
        chosen = args.assignments or every
        if args.quick and not args.assignments:
            chosen = every[:1]
        unknown = [a for a in chosen if a not in every]
        for a in unknown:
            res["skipped"].append({"assignment": a, "reason": "no notebook in solutions/"})
        chosen = [a for a in chosen if a in every]
        for a in list(chosen):
            why = notebook_problem(base, a)
            if why:
                res["skipped"].append({"assignment": a, "reason": why})
                log(f"skipping {a}: {why}")
                chosen.remove(a)
        if "solutions" not in skip:
            res["solution_runs"] = phase_solutions(work, base, chosen)
            for nb, r in res["solution_runs"].items():
                if not r["ok"] and r["assignment"] in chosen:
                    reason = "its solution does not run cleanly: " + ("; ".join(r["errors"][:1]) or f"rc {r['rc']}")
                    res["skipped"].append({"assignment": r["assignment"], "reason": reason[:200]})
                    log(f"skipping {r['assignment']}: {reason[:150]}")
                    chosen.remove(r["assignment"])
        for a in every:  # the grader grades every assignment of the course that has submissions
            if a not in chosen:
                shutil.rmtree(base / "solutions" / a, ignore_errors=True)
                shutil.rmtree(base / "notebooks" / a, ignore_errors=True)
        if not chosen:
            raise SystemExit("nothing to benchmark: every notebook was skipped")
        res["assignments"] = chosen
        corpus = work / "corpus"
        expected, subs = build_corpus(base, corpus, min_subs)
        by_kind: dict = {}
        for sub in subs:
            by_kind[sub["kind"]] = by_kind.get(sub["kind"], 0) + 1
        res["corpus"] = {"submissions": len(subs), "by_kind": by_kind,
                         "students": sorted({x["student"] for x in subs}),
                         "expected_flat": {f"{x['student']}/{x['assignment']}/{x['notebook']}": x["expected"]
                                           for x in subs}}
        log(f"corpus: {len(subs)} submissions over {len(chosen)} notebooks ({by_kind})")

        phases = [("plain", lambda: phase_plain(work, base, corpus, subs)),
                  ("stock", lambda: phase_stock(work, base, corpus, chosen)),
                  ("ours1", lambda: phase_ours(work, base, corpus, 1, len(subs))),
                  ("ours2", lambda: phase_ours(work, base, corpus, 2, len(subs)))]
        for name, fn in phases:
            if name in skip:
                continue
            key = {"ours1": "ours_1", "ours2": "ours_2"}.get(name, name)
            try:
                res["runs"][key] = fn()
            except Exception as exc:
                res["notes"].append(f"{name} failed: {type(exc).__name__}: {exc}")
                log(f"{name} FAILED: {traceback.format_exc()[-800:]}")
            save(res, out_path)  # partial results survive an interrupted run
        if "profile" not in skip:
            students = (args.profile_students.split(",") if args.profile_students else
                        (sorted({x["student"] for x in subs}) if args.quick else ["alice"]))
            try:
                prof = phase_profile(work, base, corpus, students)
                res["profile_raw"] = prof
                res["breakdown"] = breakdown(prof)
                if "error" in prof:
                    res["notes"].append(prof["error"])
            except Exception as exc:
                res["notes"].append(f"profile failed: {type(exc).__name__}: {exc}")
                log(f"profile FAILED: {traceback.format_exc()[-800:]}")
        res["machine"]["loadavg_end"] = loadavg()
        end = machine_info(sandbox.available())
        res["machine"]["git_end"], res["machine"]["autograder_sha_end"] = end.get("git"), end.get("autograder_sha")
        if (end.get("git"), end.get("autograder_sha")) != (res["machine"].get("git"),
                                                            res["machine"].get("autograder_sha")):
            res["notes"].append(f"the repository changed during the run ({res['machine'].get('git')} -> "
                                f"{res['machine']['git_end']}): the runs may have measured different grader code")
        res["summary"] = summarize(res)
        res["memory"] = memory_verdict(res)
        res["targets"] = targets(res)
        res["per_notebook"] = per_notebook(res) if res.get("solution_runs") else []
        save(res, out_path)
        log(f"results: {out_path}")
        if doc_path:
            write_doc(doc_path, render(res))
            log(f"table: {doc_path}")
        print(render(res))
    finally:
        if args.keep:
            log(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 0


def save(res: dict, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    clean = json.loads(json.dumps(res, default=str))
    for r in clean.get("runs", {}).values():
        r.pop("lines", None)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(clean, indent=1) + "\n")
    os.replace(tmp, path)


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


if __name__ == "__main__":
    sys.exit(main())
