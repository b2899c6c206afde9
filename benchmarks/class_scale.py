"""Grading a whole course at class scale: stock ``nbgrader autograde`` against ``autograder grade`` (each
notebook's grade path) at 1 and 2 workers, and ``grade --full`` (the path, then the notebook top to bottom
beside it) whose results say, submission by submission, whether the verdicts differ; what each notebook's
path and each hidden test cost.  All in one run.  Results in ``benchmarks/results/class_scale.json`` and
tables in ``docs/benchmarks.md``.

    .venv/bin/python benchmarks/class_scale.py                 # all 13 notebooks x 7 submissions (quiet machine)
    .venv/bin/python benchmarks/class_scale.py --notebooks 01_tensors --per-notebook 3 --skip stock   # to try it

The corpus is built from the answer variants in ``tests/answers/`` (seeded, so every run grades the same
class): per notebook, about half the submissions are complete (each exercise answered with the reference
or one of its correct variants), a fifth leave one or two exercises as released, a fifth get one exercise
wrong (a wrong variant), and the rest crash (an answer that kills the kernel); at least one of each kind
where there are 4 or more.  Every phase grades the same copy of the corpus into a fresh gradebook, so
reference runs are paid again by each.  The class was handed one copy for all (``--default-variant``).

The costs: each notebook's solution runs on its grade path in a fresh sandboxed kernel, as a reference run
does, twice: with an empty compile cache (``cold``), then with the cache the first run left (``warm``, as
every submission gets it: :func:`autograder.grading.workfolder.seed_compile_cache`); and once top to bottom.
Each cell's seconds are kept: each exercise's answer and test cell (visible asserts and hidden
observations), the path's cells, the whole notebook's.  The isolation floor is an empty sandboxed kernel per
submission, 2 at a time, forked from each worker's zygote as in grading.

Targets (``summary``): the whole course at 2 workers at least 15x stock; each notebook's time per submission
(a complete submission's graded run, kernel start to kernel end) at most 1.5x its path's cells (warm) plus
one kernel start; the path's verdicts equal top to bottom on every submission.
"""

from __future__ import annotations

import argparse
import copy
import datetime as dt
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from grading_measure import PY, ROOT, env_for_tools, loadavg, log, machine_info, run_measured  # noqa: E402
from grading_phases import phase_stock  # noqa: E402

os.environ["OMP_NUM_THREADS"] = "1"
RESULTS = ROOT / "benchmarks" / "results" / "class_scale.json"
DOC = ROOT / "docs" / "benchmarks.md"
PER_NOTEBOOK = 7  # 13 notebooks x 7 = 91 submissions
CRASH = "import os\nos._exit(1)  # the kernel dies here\n"
PHASES = ("stock", "path_1", "path_2", "full_2", "costs", "floor")
HONEST = ("complete", "partial", "buggy", "crashing")


def all_notebooks() -> list[str]:
    from autograder.values import course

    return [nb for a in course.assignments(ROOT) for nb in a.notebooks()]


def kinds_for(n: int) -> list[str]:
    """``n`` submissions: a fifth partial, a fifth buggy, a fifteenth crashing (each at least one from 4 on),
    the rest complete."""
    n_partial = n_buggy = max(n // 5, 1 if n >= 4 else 0)
    n_crash = max(n // 15, 1 if n >= 4 else 0)
    kinds = ["partial"] * n_partial + ["buggy"] * n_buggy + ["crashing"] * n_crash
    return ["complete"] * (n - len(kinds)) + kinds


def build_corpus(base: Path, out: Path, notebooks: list[str], per_notebook: int, seed: int) -> list[dict]:
    """Submissions in nbgrader's ``submitted/STUDENT/ASSIGNMENT/NB.ipynb`` layout, from the answer variants."""
    import nbformat

    from autograder.values import course

    rng = random.Random(seed)
    subs = []
    for nb in notebooks:
        a = course.Assignment(nb, base)
        solution = course.read(a.solution(nb))
        release = course.read(a.release(nb))
        exercises = course.exercises(solution)
        variants = ROOT / "tests" / "answers" / nb
        reference = {ex.id: solution.cells[ex.solution_cells[0]].source for ex in exercises}
        stub = {course.grade_id(c): c.source for c in release.cells if course.is_solution(c)}

        def usable(paths):  # a variant written for another per-student variant is graded there, not here
            return [p for p in paths if not any(line.startswith("# variant:") for line in p.read_text().splitlines()[:5])]

        for k, kind in enumerate(kinds_for(per_notebook)):
            answers = {}
            for ex in exercises:
                pick = rng.choice([None] + usable(sorted((variants / ex.id).glob("correct_*.py"))))
                answers[ex.id] = reference[ex.id] if pick is None else pick.read_text()
            if kind == "partial":
                for ex in rng.sample(exercises, min(len(exercises), rng.choice([1, 2]))):
                    answers[ex.id] = stub[f"{ex.id}_solution"]
            elif kind == "buggy":
                ex = rng.choice([e for e in exercises if usable(list((variants / e.id).glob("wrong_*.py")))])
                answers[ex.id] = rng.choice(usable(sorted((variants / ex.id).glob("wrong_*.py")))).read_text()
            elif kind == "crashing":
                answers[rng.choice(exercises).id] = CRASH
            doc = copy.deepcopy(release)
            for c in doc.cells:
                gid = course.grade_id(c)
                if gid and course.is_solution(c) and gid.endswith("_solution") and gid[:-len("_solution")] in answers:
                    c.source = answers[gid[:-len("_solution")]]
            student = f"s{nb[:2]}{k:02d}"
            path = out / student / nb / f"{nb}.ipynb"
            path.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(doc, path)
            subs.append({"student": student, "assignment": nb, "notebook": nb, "kind": kind, "path": str(path),
                         "answers": answers})
    return subs


def results_of(course_dir: Path) -> dict:
    out = {}
    for p in sorted((course_dir / ".autograder" / "results").glob("*/*/*.json")):
        r = json.loads(p.read_text())["result"]
        out[f"{r['student']}/{r['assignment']}/{r['notebook']}"] = {
            "exercises": {e["id"]: [e["status"], e["score"]] for e in r["exercises"]},
            "run": r.get("run", ""), "seconds": r.get("seconds", 0.0), "error": r.get("error")}
    return out


def phase_grade(work: Path, base: Path, corpus: Path, workers: int, full: bool, n: int) -> dict:
    name = f"{'full' if full else 'path'}_{workers}"
    course_dir = work / name
    shutil.copytree(base, course_dir)
    log(f"{name}: autograder grade --workers {workers}{' --full' if full else ''}")

    def poll(t):
        done = len(list((course_dir / ".autograder" / "results").glob("*/*/*.json")))
        log(f"  +{t:.0f}s graded {done}/{n}")

    cmd = [PY, "-m", "autograder", "grade", "--submissions", str(corpus), "--workers", str(workers), "--force",
           "--default-variant"] + (["--full"] if full else [])
    r = run_measured(cmd, course_dir, env_for_tools(), work / "logs" / f"{name}.log", timeout=4 * 3600, poll=poll,
                     poll_every=60)
    results = results_of(course_dir)
    log(f"  {name}: {r['wall_s']:.1f} s (rc {r['rc']}), {len(results)} results")
    refs = {}
    for t, text in r["lines"]:  # "reference ready: ASSIGNMENT/NOTEBOOK in 3.2 s"
        if text.startswith("reference ready: ") and " in " in text:
            where, secs = text[len("reference ready: "):].rsplit(" in ", 1)
            refs[where.split("/")[-1]] = float(secs.split()[0])
    return {"wall_s": r["wall_s"], "cpu_s": r["cpu_s"], "rc": r["rc"], "loadavg_before": r["loadavg_before"],
            "loadavg_after": r["loadavg_after"], "results": results, "references_s": refs,
            "tail": [t for _, t in r["lines"][-3:]]}


COSTS = r'''
import copy, json, shutil, sys, tempfile, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from autograder import gradepath
from autograder.grading.execute import execute, work_folder
from autograder.grading.steps.arm import arm_hidden_tests
from autograder.grading.workfolder import COMPILE_CACHE, compile_cache_env, copy_regular_files, seed_compile_cache
from autograder.sandbox.launch import Sandbox, available
from autograder.values import course, support, variants
root, names = Path(sys.argv[1]), sys.argv[2].split(",")
sandbox = Sandbox() if available() else None
out = {}
for a in course.assignments(root):
    for nb in a.notebooks():
        if nb not in names:
            continue
        plain = course.read(a.solution(nb))
        armed = arm_hidden_tests(plain, 1234, course.markers(root), variant=variants.bound(plain))
        path = gradepath.grade_path(armed)
        kept = Path(tempfile.mkdtemp(prefix="costs-cache-"))
        runs = {}
        for mode in ("cold", "warm", "top_to_bottom"):
            todo = armed if mode == "top_to_bottom" else gradepath.mark(armed, path)
            with work_folder(sandbox, "costs-") as tmp:
                support.copy_listed(a.solution_dir, support.listed(a.solution_dir), tmp)
                t = time.monotonic()
                if mode != "cold":
                    seed_compile_cache(tmp, kept)
                copied = time.monotonic() - t
                env = {"AUTOGRADER_MODE": "record", **(compile_cache_env(tmp) if sandbox is not None else {})}
                res = execute(todo, tmp, env=env, sandbox=sandbox)
                made = tmp / COMPILE_CACHE
                if mode == "cold" and made.is_dir():
                    shutil.rmtree(kept, ignore_errors=True)
                    copy_regular_files(made, kept)
            runs[mode] = {"seconds": round(res.seconds, 3), "error": res.error, "cache_copy_s": round(copied, 3),
                          "cells": {str(i): round(s, 3) for i, s in res.cell_seconds.items()}}
        cache_mib = sum(f.stat().st_size for f in kept.rglob("*") if f.is_file()) / (1 << 20)
        shutil.rmtree(kept, ignore_errors=True)
        exercises = [{"id": ex.id, "answer_cell": ex.solution_cells[0], "test_cell": ex.test_cell}
                     for ex in course.exercises(armed)]
        out[nb] = {"code_cells": path.code_cells, "path_cells": sorted(path.cells), "exercises": exercises,
                   "cache_mib": round(cache_mib, 1), "runs": runs}
print(json.dumps(out))
'''


def phase_costs(work: Path, notebooks: list[str]) -> dict:
    """Each notebook's solution on its path (cold and warm compile cache) and top to bottom, cell by cell."""
    log("costs: every notebook's path (cold and warm compile cache) and top to bottom, cell by cell")
    script = work / "costs.py"
    script.write_text(COSTS)
    p = subprocess.run([PY, str(script), str(ROOT), ",".join(notebooks)], capture_output=True, text=True,
                       env=env_for_tools(), timeout=3600)
    if p.returncode:
        raise RuntimeError(p.stderr[-2000:])
    return json.loads(p.stdout.strip().splitlines()[-1])


FLOOR = r'''
import sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import nbformat
from autograder.grading.execute import execute, work_folder
from autograder.sandbox.launch import Sandbox, available
sandbox = Sandbox() if available() else None
nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("pass")])


def one():
    with work_folder(sandbox, "floor-") as work:
        res = execute(nb, work, env={"AUTOGRADER_MODE": "record"}, sandbox=sandbox)
        assert res.error is None, res.error


t = time.monotonic()
one()  # the worker's zygote starts (once per worker, as in grading)
first = time.monotonic() - t
t = time.monotonic()
for _ in range(int(sys.argv[2])):
    one()
print(first, time.monotonic() - t)
'''


def phase_floor(work: Path, n: int) -> dict:
    """What isolation alone costs: a fresh sandboxed kernel per submission that runs one empty cell,
    ``n`` of them, 2 at a time, each worker's zygote started first as in grading."""
    log("isolation floor: an empty kernel per submission, 2 at a time")
    script = work / "floor.py"
    script.write_text(FLOOR)
    t = time.monotonic()
    procs = [subprocess.Popen([PY, str(script), str(ROOT), str(k)], stdout=subprocess.PIPE, text=True,
                              env=env_for_tools()) for k in (n - n // 2, n // 2)]
    said = [p.communicate(timeout=3600)[0].strip().splitlines()[-1].split() for p in procs]
    wall = time.monotonic() - t
    return {"kernels": n, "wall_s_2": round(wall, 1), "zygote_start_s": round(max(float(x[0]) for x in said), 2),
            "per_kernel_s": round(sum(float(x[1]) for x in said) / max(1, n), 3)}


def top_to_bottom_differences(full: dict, kinds: dict[str, str]) -> dict:
    """What ``grade --full`` said of each submission: the same verdicts top to bottom, or where they differ."""
    same, differ = 0, []
    for key, r in sorted(full.items()):
        said = r["run"].split("; top to bottom: ", 1)[1] if "; top to bottom: " in r["run"] else "(not said)"
        if said.startswith("the same verdicts"):
            same += 1
        else:
            differ.append(f"{key} ({kinds.get(key, '?')}): {said}")
    return {"same": same, "differ": differ}


def per_notebook(res: dict) -> dict:
    """Each notebook: its path, its cells' seconds, and its time per submission against the 1.5x target."""
    costs, floor = res.get("costs") or {}, res.get("floor") or {}
    graded = (res["runs"].get("path_2") or res["runs"].get("path_1") or {}).get("results", {})
    kinds = {f"{s['student']}/{s['assignment']}/{s['notebook']}": s["kind"] for s in res["corpus"]["list"]}
    out = {}
    for nb in res["notebooks"]:
        c = costs.get(nb)
        row: dict = {}
        if c:
            cells = {int(k): v for k, v in c["runs"]["warm"]["cells"].items()}
            row.update({"code_cells": c["code_cells"], "path_cells": len(c["path_cells"]),
                        "path_cells_s": round(sum(cells.values()), 3),
                        "path_cells_cold_s": round(sum(c["runs"]["cold"]["cells"].values()), 3),
                        "top_to_bottom_cells_s": round(sum(c["runs"]["top_to_bottom"]["cells"].values()), 3),
                        "cache_mib": c["cache_mib"], "cache_copy_s": c["runs"]["warm"]["cache_copy_s"]})
        complete = [r["seconds"] for k, r in graded.items() if k.split("/")[2] == nb and kinds.get(k) == "complete"]
        if complete:
            row["per_submission_s"] = round(statistics.mean(complete), 3)
        if complete and c and floor.get("per_kernel_s"):
            bound = row["path_cells_s"] + floor["per_kernel_s"]
            row["x_path_and_kernel"] = round(row["per_submission_s"] / bound, 2)
        out[nb] = row
    return out


def per_exercise(res: dict) -> list[dict]:
    """What each exercise's cells cost on the path: the answer cell, and the test cell with a warm and a cold
    compile cache (the difference is what the test's own compiles cost where the cache is not there)."""
    out = []
    for nb, c in (res.get("costs") or {}).items():
        warm, cold = c["runs"]["warm"]["cells"], c["runs"]["cold"]["cells"]
        for ex in c["exercises"]:
            a, t = str(ex["answer_cell"]), str(ex["test_cell"])
            out.append({"notebook": nb, "exercise": ex["id"], "answer_s": warm.get(a), "tests_s": warm.get(t),
                        "tests_cold_s": cold.get(t)})
    return out


def summarize(res: dict) -> dict:
    n = res["corpus"]["submissions"]
    runs = res["runs"]
    out: dict = {"submissions": n}
    stock = runs.get("stock", {}).get("wall_s")
    for k, r in runs.items():
        if r.get("wall_s"):
            out[k] = {"wall_s": r["wall_s"], "per_min": round(n / r["wall_s"] * 60, 2),
                      "x_stock": round(stock / r["wall_s"], 2) if stock else None}
    if "full_2" in runs:
        kinds = {f"{s['student']}/{s['assignment']}/{s['notebook']}": s["kind"] for s in res["corpus"]["list"]}
        out["top_to_bottom"] = top_to_bottom_differences(runs["full_2"]["results"], kinds)
    out["notebooks"] = per_notebook(res)
    out["exercises"] = per_exercise(res)
    targets = {}
    if out.get("path_2", {}).get("x_stock"):
        targets["whole course >= 15x stock at 2 workers"] = {"measured": out["path_2"]["x_stock"],
                                                             "met": out["path_2"]["x_stock"] >= 15}
    ratios = {nb: r["x_path_and_kernel"] for nb, r in out["notebooks"].items() if "x_path_and_kernel" in r}
    if ratios:
        targets["each notebook <= 1.5x (path cells + one kernel start)"] = {
            "measured": ratios, "met": all(v <= 1.5 for v in ratios.values()),
            "missed_by": sorted(nb for nb, v in ratios.items() if v > 1.5)}
    if "top_to_bottom" in out:
        targets["verdicts: the path's equal top to bottom on every submission"] = {
            "measured": f"{out['top_to_bottom']['same']} of {out['top_to_bottom']['same'] + len(out['top_to_bottom']['differ'])}",
            "met": not out["top_to_bottom"]["differ"]}
    out["targets"] = targets
    return out


def render(res: dict) -> str:
    s = res["summary"]
    c = res["corpus"]
    lines = [f"Class-scale corpus: {c['submissions']} submissions ({', '.join(f'{v} {k}' for k, v in c['by_kind'].items())}) "
             f"of {len(res['notebooks'])} notebooks, built from `tests/answers/`; {res['generated'][:10]}, "
             f"{res['machine']['cpus']} cores, load average {res['machine']['loadavg_start']} at the start.",
             "", "| run | wall (s) | submissions/min | × stock |", "|---|---:|---:|---:|"]
    for label, k in (("stock `nbgrader autograde`", "stock"), ("`autograder grade`, 1 worker", "path_1"),
                     ("`autograder grade`, 2 workers", "path_2"),
                     ("`autograder grade --full` (the path, then top to bottom), 2 workers", "full_2")):
        if k in s:
            x = f"{s[k]['x_stock']:.2f}" if s[k]["x_stock"] else ("1" if k == "stock" else "–")
            lines.append(f"| {label} | {s[k]['wall_s']:.0f} | {s[k]['per_min']:.1f} | {x} |")
    if res.get("floor"):
        f = res["floor"]
        lines.append(f"| isolation floor: an empty sandboxed kernel per submission, 2 workers | {f['wall_s_2']:.0f} | "
                     f"{60 * c['submissions'] / f['wall_s_2']:.0f} | |")
    lines.append("")
    if res["runs"].get("stock", {}).get("from"):
        lines.append(f"Stock nbgrader was not run again: its figure is the one measured on {res['runs']['stock']['from']}.")
    if s.get("targets"):
        lines += ["", "| target | measured | |", "|---|---|---|"]
        for name, t in s["targets"].items():
            m = t["measured"]
            if isinstance(m, dict):
                m = f"highest {max(m.values()):.2f}× ({max(m, key=m.get)})" + (
                    f"; above 1.5×: {', '.join(t['missed_by'])}" if t.get("missed_by") else "")
            lines.append(f"| {name} | {m} | {'met' if t['met'] else '**missed**'} |")
    if s.get("top_to_bottom", {}).get("differ"):
        lines += ["", "Where top to bottom differs from the path: " + "; ".join(s["top_to_bottom"]["differ"][:10])]
    nbs = s.get("notebooks") or {}
    if any(nbs.values()):
        lines += ["", "| notebook | code cells on the path | path's cells (s, warm / cold cache) | top to bottom's cells (s) "
                      "| per submission (s) | ÷ (path's cells + a kernel start) |", "|---|---:|---:|---:|---:|---:|"]
        for nb, r in nbs.items():
            if "path_cells" not in r:
                continue
            lines.append(f"| {nb} | {r['path_cells']} of {r['code_cells']} | {r['path_cells_s']:.2f} / "
                         f"{r['path_cells_cold_s']:.2f} | {r['top_to_bottom_cells_s']:.2f} | "
                         f"{r.get('per_submission_s', float('nan')):.2f} | {r.get('x_path_and_kernel', float('nan')):.2f} |")
    return "\n".join(lines)


def render_exercises(res: dict) -> str:
    rows = res["summary"].get("exercises") or []
    lines = ["| notebook | exercise | answer cell (s) | test cell (s) | test cell, cold compile cache (s) |",
             "|---|---|---:|---:|---:|"]
    for r in rows:
        def f(v):
            return "–" if v is None else f"{v:.2f}"
        lines.append(f"| {r['notebook']} | {r['exercise']} | {f(r['answer_s'])} | {f(r['tests_s'])} | {f(r['tests_cold_s'])} |")
    return "\n".join(lines)


def write_doc(path: Path, table: str, marker: str = "class-scale") -> None:
    begin, end = f"<!-- {marker}:begin -->", f"<!-- {marker}:end -->"
    text = path.read_text() if path.exists() else ""
    block = f"{begin}\n{table}\n{end}"
    if begin in text:
        text = text.split(begin)[0] + block + text.split(end, 1)[1]
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    path.write_text(text)


def write_docs(doc: Path, res: dict) -> None:
    write_doc(doc, render(res))
    if res["summary"].get("exercises"):
        write_doc(doc, render_exercises(res), "exercise-costs")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--notebooks", nargs="*", default=None, help="notebooks to grade (default: all of the course)")
    p.add_argument("--per-notebook", type=int, default=PER_NOTEBOOK)
    p.add_argument("--seed", type=int, default=17)
    p.add_argument("--skip", default="", help=f"comma-separated phases to skip: {','.join(PHASES)}")
    p.add_argument("--stock-from", metavar="JSON", default=None,
                   help="take stock nbgrader's time from an earlier results file of the same corpus")
    p.add_argument("--out", default=None)
    p.add_argument("--doc", default=None)
    p.add_argument("--render", metavar="JSON", default=None, help="only rewrite the tables from a results file")
    args = p.parse_args(argv)
    if args.render:
        write_docs(Path(args.doc) if args.doc else DOC, json.loads(Path(args.render).read_text()))
        return 0
    notebooks = args.notebooks or all_notebooks()
    skip = {x for x in args.skip.split(",") if x}
    if skip - set(PHASES):
        raise SystemExit(f"no such phase: {', '.join(sorted(skip - set(PHASES)))} (phases: {', '.join(PHASES)})")
    default = args.notebooks is None and args.per_notebook == PER_NOTEBOOK and not skip and not args.stock_from
    out_path = Path(args.out) if args.out else (RESULTS if default else Path(tempfile.gettempdir()) / "class-scale.json")
    doc = Path(args.doc) if args.doc else (DOC if default else None)

    from autograder.sandbox import launch as sandbox
    from autograder.values import course

    work = Path(tempfile.mkdtemp(prefix="class-scale-"))
    (work / "logs").mkdir()
    log(f"working folder {work}")
    base = work / "base"
    course.copy_course(ROOT, base)
    for a in course.assignments(base):
        if a.name not in notebooks:  # the grader grades every assignment that has submissions
            shutil.rmtree(base / "solutions" / a.name, ignore_errors=True)
            shutil.rmtree(base / "notebooks" / a.name, ignore_errors=True)
    corpus = work / "corpus"
    subs = build_corpus(base, corpus, notebooks, args.per_notebook, args.seed)
    by_kind = {k: sum(s["kind"] == k for s in subs) for k in HONEST if any(s["kind"] == k for s in subs)}
    res: dict = {"generated": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                 "machine": machine_info(sandbox.available()), "notebooks": notebooks,
                 "corpus": {"submissions": len(subs), "by_kind": by_kind, "seed": args.seed,
                            "list": [{k: s[k] for k in ("student", "assignment", "notebook", "kind")} for s in subs]},
                 "runs": {}}
    log(f"corpus: {len(subs)} submissions {by_kind}")
    if args.stock_from:
        earlier = json.loads(Path(args.stock_from).read_text())
        if earlier.get("corpus", {}).get("seed") != args.seed or earlier.get("notebooks") != notebooks \
                or earlier.get("corpus", {}).get("submissions") != len(subs):
            raise SystemExit(f"{args.stock_from} timed another corpus: run stock again")
        stock = earlier["runs"]["stock"]  # itself perhaps taken from a still earlier file: keep when it was measured
        res["runs"]["stock"] = {"wall_s": stock["wall_s"], "from": stock.get("from") or earlier["generated"][:10]}
        skip.add("stock")
    phases = [("stock", lambda: phase_stock(work, base, corpus, notebooks)),
              ("path_1", lambda: phase_grade(work, base, corpus, 1, False, len(subs))),
              ("path_2", lambda: phase_grade(work, base, corpus, 2, False, len(subs))),
              ("full_2", lambda: phase_grade(work, base, corpus, 2, True, len(subs)))]
    for name, fn in phases:
        if name not in skip:
            log(f"phase {name} (load {loadavg()})")
            res["runs"][name] = fn()
    if "costs" not in skip:
        res["costs"] = phase_costs(work, notebooks)
    if "floor" not in skip:
        res["floor"] = phase_floor(work, len(subs))
    res["summary"] = summarize(res)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(json.dumps(res, indent=1))
    print(render(res))
    print()
    print(render_exercises(res))
    if doc:
        write_docs(doc, res)
    log(f"results in {out_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
