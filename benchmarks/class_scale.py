"""Grading at class scale: stock ``nbgrader autograde`` against ``autograder grade --full`` and the
short run (the default), at 1 and 2 workers, on a class-sized corpus, in one run; and the
physical limit: the graded cells alone in a warm interpreter.  Results in
``benchmarks/results/class_scale.json`` and a table in ``docs/benchmarks.md``.

    .venv/bin/python benchmarks/class_scale.py                       # 3 notebooks x 30 submissions
    .venv/bin/python benchmarks/class_scale.py --notebooks 01_tensors --per-notebook 6   # to try it

The corpus is built from the answer variants in ``tests/answers/`` (seeded, so every run grades
the same class): per notebook, about half the submissions are complete (each exercise answered
with the reference or one of its correct variants), a fifth leave one or two exercises as
released, a fifth get one exercise wrong (a wrong variant), and the rest crash (an answer that
kills the kernel).  Every phase grades the same copy of the corpus into a fresh gradebook, so
reference runs are paid again by each.

The physical limit, per submission, is the time of its answer cells and test cells alone, run in
a kernel that has already run the whole solution (imports done, data loaded, nothing else to
run): what grading would cost if nothing but the graded cells ever ran.

Verdicts: the short run's status and score of every exercise of every submission must equal
``--full``'s.
"""

from __future__ import annotations

import argparse
import copy
import datetime as dt
import json
import os
import random
import shutil
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
DEFAULT_NOTEBOOKS = ["01_tensors", "03_training_loop", "05_optimizers"]
CRASH = "import os\nos._exit(1)  # the kernel dies here\n"


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
        n_partial = n_buggy = per_notebook // 5
        n_crash = max(1, per_notebook // 15)
        kinds = (["partial"] * n_partial + ["buggy"] * n_buggy + ["crashing"] * n_crash)
        kinds = ["complete"] * (per_notebook - len(kinds)) + kinds
        for k, kind in enumerate(kinds):
            answers = {}
            for ex in exercises:
                correct = sorted((variants / ex.id).glob("correct_*.py"))
                pick = rng.choice([None] + correct)
                answers[ex.id] = reference[ex.id] if pick is None else pick.read_text()
            if kind == "partial":
                for ex in rng.sample(exercises, min(len(exercises), rng.choice([1, 2]))):
                    answers[ex.id] = stub[f"{ex.id}_solution"]
            elif kind == "buggy":
                ex = rng.choice([e for e in exercises if list((variants / e.id).glob("wrong_*.py"))])
                answers[ex.id] = rng.choice(sorted((variants / ex.id).glob("wrong_*.py"))).read_text()
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
    name = f"{'full' if full else 'short'}_{workers}"
    course_dir = work / name
    shutil.copytree(base, course_dir)
    log(f"{name}: autograder grade --workers {workers}{' --full' if full else ''}")

    def poll(t):
        done = len(list((course_dir / ".autograder" / "results").glob("*/*/*.json")))
        log(f"  +{t:.0f}s graded {done}/{n}")

    cmd = [PY, "-m", "autograder", "grade", "--submissions", str(corpus), "--workers", str(workers), "--force"]
    r = run_measured(cmd + (["--full"] if full else []), course_dir, env_for_tools(), work / "logs" / f"{name}.log",
                     timeout=4 * 3600, poll=poll, poll_every=60)
    results = results_of(course_dir)
    log(f"  {name}: {r['wall_s']:.1f} s (rc {r['rc']}), {len(results)} results")
    runs: dict = {}
    for v in results.values():
        kind = v["run"].split(":")[0].split(",")[0]
        runs[kind] = runs.get(kind, 0) + 1
    return {"wall_s": r["wall_s"], "cpu_s": r["cpu_s"], "rc": r["rc"], "loadavg_before": r["loadavg_before"],
            "loadavg_after": r["loadavg_after"], "results": results, "runs": runs,
            "tail": [t for _, t in r["lines"][-3:]]}


PHYSICAL = r'''
import copy, json, sys, tempfile, time
from pathlib import Path
import nbformat
from nbclient import NotebookClient
sys.path.insert(0, sys.argv[1])
from autograder.values import course
from autograder.grading.execute import kernel_arguments, launch_env
from autograder.values import support, variants
from autograder.grading.submission import arm_hidden_tests
root, subs = Path(sys.argv[1]), json.loads(Path(sys.argv[2]).read_text())
out = {}
for nb in sorted({s["notebook"] for s in subs}):
    a = course.Assignment(nb, root)
    plain = course.read(a.solution(nb))
    sol = arm_hidden_tests(plain, 1234, course.Markers(), variant=variants.bound(plain))
    exercises = course.exercises(sol)
    with tempfile.TemporaryDirectory() as tmp:
        support.copy_listed(a.solution_dir, support.listed(a.solution_dir), Path(tmp))
        client = NotebookClient(sol, timeout=600, kernel_name="python3", allow_errors=True,
                                extra_arguments=kernel_arguments(root), resources={"metadata": {"path": tmp}})
        with client.setup_kernel(env=launch_env({"AUTOGRADER_MODE": "record"}), cwd=tmp):
            for i, c in enumerate(sol.cells):
                if c.cell_type == "code":
                    client.execute_cell(c, i)
            for s in [s for s in subs if s["notebook"] == nb]:
                if any("os._exit" in v for v in s["answers"].values()):
                    out[s["student"]] = None  # a crash ends the kernel: not a graded-cell cost
                    continue
                spent = 0.0
                for ex in exercises:
                    for src in (s["answers"][ex.id], sol.cells[ex.test_cell].source):
                        cell = nbformat.v4.new_code_cell(src)
                        sol.cells.append(cell)
                        t = time.perf_counter()
                        client.execute_cell(cell, len(sol.cells) - 1)
                        spent += time.perf_counter() - t
                out[s["student"]] = spent
print(json.dumps(out))
'''


def phase_physical(work: Path, base: Path, subs: list[dict]) -> dict:
    """Each submission's graded cells alone, in a kernel warm with the whole solution run."""
    log("physical limit: graded cells alone in a warm kernel")
    spec = work / "physical-subs.json"
    spec.write_text(json.dumps(subs))
    script = work / "physical.py"
    script.write_text(PHYSICAL)
    t = time.monotonic()
    p = subprocess.run([PY, str(script), str(base), str(spec)], capture_output=True, text=True, env=env_for_tools(),
                       timeout=3600)
    if p.returncode:
        raise RuntimeError(p.stderr[-2000:])
    per = json.loads(p.stdout.strip().splitlines()[-1])
    timed = [v for v in per.values() if v is not None]
    return {"per_submission_s": per, "graded_cells_s": round(sum(timed), 2),
            "mean_s": round(sum(timed) / max(1, len(timed)), 3), "wall_s": round(time.monotonic() - t, 1)}


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
    ``n`` of them, 2 at a time, each worker's zygote started first as in grading (what the short
    run at 2 workers can never go below, before any reference run or any of the notebook's cells)."""
    log("isolation floor: an empty kernel per submission, 2 at a time")
    script = work / "floor.py"
    script.write_text(FLOOR)
    t = time.monotonic()
    procs = [subprocess.Popen([PY, str(script), str(ROOT), str(k)], stdout=subprocess.PIPE, text=True,
                              env=env_for_tools()) for k in (n - n // 2, n // 2)]
    said = [p.communicate(timeout=3600)[0].strip().splitlines()[-1].split() for p in procs]
    wall = time.monotonic() - t
    return {"kernels": n, "wall_s_2": round(wall, 1), "zygote_start_s": round(max(float(x[0]) for x in said), 2),
            "per_kernel_s": round(sum(float(x[1]) for x in said) / n, 3)}


PLANS = r'''
import json, sys, tempfile, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from autograder.values import course
from autograder.grading.coursedata import NotebookData
from autograder.grading.references import run_reference
from autograder.sandbox.launch import Sandbox, available
out = {}
for a in course.assignments(Path(sys.argv[1])):
    for nb in a.notebooks():
        t = time.monotonic()
        ref = run_reference(NotebookData.load(a, nb), 1234, sandbox=Sandbox() if available() else None,
                            cache_dir=Path(tempfile.mkdtemp()))
        p = ref.short
        out[nb] = {"ok": bool(p and p.ok), "failure": ref.failure or (p.failure if p else None),
                   "skipped_cells": len(p.skip_sources) if p else 0, "code_cells": p.code_cells if p else 0,
                   "cell_seconds": p.seconds[0] if p else 0, "skipped_seconds": p.seconds[1] if p else 0,
                   "reference_s": round(time.monotonic() - t, 1)}
print(json.dumps(out))
'''


def phase_plans(work: Path) -> dict:
    """Every notebook's proof, as the grader makes it with each reference (sandboxed where it can be)."""
    log("short-run plans of every notebook")
    script = work / "plans.py"
    script.write_text(PLANS)
    p = subprocess.run([PY, str(script), str(ROOT)], capture_output=True, text=True, env=env_for_tools(), timeout=3600)
    if p.returncode:
        raise RuntimeError(p.stderr[-2000:])
    return json.loads(p.stdout.strip().splitlines()[-1])


def render_plans(plans: dict) -> str:
    lines = ["| notebook | code cells skipped | seconds skipped / all cells (reference's full run) | short run |",
             "|---|---:|---:|---|"]
    for nb, p in plans.items():
        share = f"{p['skipped_seconds']:.1f} / {p['cell_seconds']:.1f}" + (
            f" ({100 * p['skipped_seconds'] / p['cell_seconds']:.0f}%)" if p["cell_seconds"] else "")
        lines.append(f"| {nb} | {p['skipped_cells']} of {p['code_cells']} | {share} | "
                     f"{'proven' if p['ok'] else 'none: ' + str(p['failure'])} |")
    return "\n".join(lines)


def compare_verdicts(short: dict, full: dict) -> list[str]:
    diffs = []
    for key in sorted(set(short) | set(full)):
        a, b = short.get(key), full.get(key)
        if a is None or b is None:
            diffs.append(f"{key}: graded by one run only")
        elif a["exercises"] != b["exercises"]:
            ex = [e for e in a["exercises"] if a["exercises"][e] != b["exercises"].get(e)]
            said = ", ".join(f"{e} short {a['exercises'][e]} full {b['exercises'].get(e)}" for e in ex)
            diffs.append(f"{key}: {said}")
    return diffs


def summarize(res: dict) -> dict:
    n = res["corpus"]["submissions"]
    runs = res["runs"]
    out = {"submissions": n}
    stock = runs.get("stock", {}).get("wall_s")
    for k, r in runs.items():
        if r.get("wall_s"):
            out[k] = {"wall_s": r["wall_s"], "per_min": round(n / r["wall_s"] * 60, 2),
                      "x_stock": round(stock / r["wall_s"], 2) if stock else None}
    phys = res.get("physical", {}).get("graded_cells_s")
    if phys:
        out["physical"] = {"graded_cells_s": phys, "per_min_1": round(n / phys * 60, 1),
                           "per_min_2": round(2 * n / phys * 60, 1)}
        for k, workers in (("short_2", 2), ("short_1", 1)):
            if k in out:
                out[k]["x_physical"] = round(out[k]["wall_s"] / (phys / workers), 1)
    floor = res.get("floor")
    if floor:
        out["floor"] = {"wall_s_2": floor["wall_s_2"], "per_kernel_s": floor["per_kernel_s"],
                        "zygote_start_s": floor.get("zygote_start_s")}
        if phys:
            out["floor"]["x_physical"] = round(floor["wall_s_2"] / (phys / 2), 1)
            # the isolation limit: the graded cells alone plus one empty fresh sandboxed kernel per submission
            out["isolation_limit_s_2"] = round(phys / 2 + floor["wall_s_2"], 1)
            if "short_2" in out:
                out["short_2"]["x_isolation_limit"] = round(out["short_2"]["wall_s"] / out["isolation_limit_s_2"], 2)
    plans = res.get("plans") or {}
    refs = [plans[nb]["reference_s"] for nb in res.get("notebooks", []) if nb in plans]
    if refs:
        out["references_s"] = round(sum(refs), 1)
    if "verdict_differences" in res:  # only when both a short and a full run were timed
        out["verdicts_identical"] = not res["verdict_differences"]
    return out


def render(res: dict) -> str:
    s = res["summary"]
    rows = [("stock `nbgrader autograde`", "stock"), ("`autograder grade --full`, 1 worker", "full_1"),
            ("`autograder grade --full`, 2 workers", "full_2"), ("`autograder grade` (short run), 1 worker", "short_1"),
            ("`autograder grade` (short run), 2 workers", "short_2")]
    c = res["corpus"]
    lines = [f"Class-scale corpus: {c['submissions']} submissions ({', '.join(f'{v} {k}' for k, v in c['by_kind'].items())}) "
             f"of {', '.join(res['notebooks'])}, built from `tests/answers/`; {res['generated'][:10]}, "
             f"{res['machine']['cpus']} cores, load average {res['machine']['loadavg_start']} at the start.",
             "", "| run | wall (s) | submissions/min | × stock |", "|---|---:|---:|---:|"]
    for label, k in rows:
        if k in s:
            lines.append(f"| {label} | {s[k]['wall_s']:.0f} | {s[k]['per_min']:.1f} | "
                         f"{s[k]['x_stock']:.2f} |" if s[k]["x_stock"] else f"| {label} | {s[k]['wall_s']:.0f} | {s[k]['per_min']:.1f} | 1 |")
    if "physical" in s:
        p = s["physical"]
        lines.append(f"| physical limit: graded cells alone in a warm kernel (1 / 2 workers) | "
                     f"{p['graded_cells_s']:.0f} / {p['graded_cells_s'] / 2:.0f} | {p['per_min_1']:.0f} / {p['per_min_2']:.0f} | |")
    if "floor" in s:
        f = s["floor"]
        lines.append(f"| isolation floor: an empty sandboxed kernel per submission, 2 workers | {f['wall_s_2']:.0f} | "
                     f"{60 * c['submissions'] / f['wall_s_2']:.0f} | |")
    if "isolation_limit_s_2" in s:
        lim = s["isolation_limit_s_2"]
        lines.append(f"| isolation limit: the graded cells plus the floor, 2 workers | {lim:.0f} | "
                     f"{60 * c['submissions'] / lim:.0f} | |")
    lines.append("")
    if res["runs"].get("stock", {}).get("from"):
        lines.append(f"Stock nbgrader was not run again: its figure is the one measured on {res['runs']['stock']['from']}, "
                     "on a corpus drawn the same way (same notebooks, seed and size; answer variants added since "
                     "change some submissions).")
    if "x_isolation_limit" in s.get("short_2", {}):
        lines.append(f"The short run at 2 workers takes {s['short_2']['x_isolation_limit']:.2f}× the isolation limit.")
    if "floor" in s and "physical" in s:
        f = s["floor"]
        lines.append(f"A fresh sandboxed kernel costs {f['per_kernel_s']:.2f} s before any cell runs (after each worker's "
                     f"zygote has started, {f['zygote_start_s']:.1f} s, once); one per submission, "
                     f"2 at a time, already costs {f.get('x_physical', 0):.1f}× the physical limit at 2 workers"
                     + (f", and the reference runs (full run and proof) of these notebooks take {s['references_s']:.0f} s "
                        "more, once per grading." if "references_s" in s else "."))
    short = res["runs"].get("short_2", {}).get("runs") or res["runs"].get("short_1", {}).get("runs") or {}
    if short:
        lines.append(f"How the short run graded them: {', '.join(f'{v} {k}' for k, v in sorted(short.items()))}.")
    if "verdicts_identical" in s:
        lines.append("Verdicts of the short run against `--full`: " + (
            "identical for every exercise of every submission." if s["verdicts_identical"] else
            f"{len(res['verdict_differences'])} differ: " + "; ".join(res["verdict_differences"][:5])))
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


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--notebooks", nargs="*", default=DEFAULT_NOTEBOOKS)
    p.add_argument("--per-notebook", type=int, default=30)
    p.add_argument("--seed", type=int, default=17)
    p.add_argument("--skip", default="", help="comma-separated phases to skip: "
                                              "stock,full_1,full_2,short_1,short_2,physical,floor,plans")
    p.add_argument("--stock-from", metavar="JSON", default=None,
                   help="take stock nbgrader's time from an earlier results file of the same corpus (it takes 25 minutes)")
    p.add_argument("--out", default=None)
    p.add_argument("--doc", default=None)
    p.add_argument("--render", metavar="JSON", default=None, help="only rewrite the table from a results file")
    args = p.parse_args(argv)
    if args.render:
        res = json.loads(Path(args.render).read_text())
        write_doc(Path(args.doc) if args.doc else DOC, render(res))
        if res.get("plans"):
            write_doc(Path(args.doc) if args.doc else DOC, render_plans(res["plans"]), "short-plans")
        return 0
    default = args.notebooks == DEFAULT_NOTEBOOKS and args.per_notebook == 30 and not args.skip
    out_path = Path(args.out) if args.out else (RESULTS if default else Path(tempfile.gettempdir()) / "class-scale.json")
    doc = Path(args.doc) if args.doc else (DOC if default else None)
    skip = {x for x in args.skip.split(",") if x}

    from autograder.sandbox import launch as sandbox
    from autograder.values import course

    work = Path(tempfile.mkdtemp(prefix="class-scale-"))
    (work / "logs").mkdir()
    log(f"working folder {work}")
    base = work / "base"
    course.copy_course(ROOT, base)
    for a in course.assignments(base):
        if a.name not in args.notebooks:  # the grader grades every assignment that has submissions
            shutil.rmtree(base / "solutions" / a.name, ignore_errors=True)
            shutil.rmtree(base / "notebooks" / a.name, ignore_errors=True)
    corpus = work / "corpus"
    subs = build_corpus(base, corpus, args.notebooks, args.per_notebook, args.seed)
    by_kind: dict = {}
    for s in subs:
        by_kind[s["kind"]] = by_kind.get(s["kind"], 0) + 1
    res: dict = {"generated": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                 "machine": machine_info(sandbox.available()), "notebooks": args.notebooks,
                 "corpus": {"submissions": len(subs), "by_kind": by_kind, "seed": args.seed}, "runs": {}}
    log(f"corpus: {len(subs)} submissions {by_kind}")
    phases = [("stock", lambda: phase_stock(work, base, corpus, args.notebooks)),
              ("full_1", lambda: phase_grade(work, base, corpus, 1, True, len(subs))),
              ("short_1", lambda: phase_grade(work, base, corpus, 1, False, len(subs))),
              ("full_2", lambda: phase_grade(work, base, corpus, 2, True, len(subs))),
              ("short_2", lambda: phase_grade(work, base, corpus, 2, False, len(subs)))]
    if args.stock_from:
        earlier = json.loads(Path(args.stock_from).read_text())
        if earlier.get("corpus", {}).get("seed") != args.seed or earlier.get("notebooks") != args.notebooks \
                or earlier.get("corpus", {}).get("submissions") != len(subs):
            raise SystemExit(f"{args.stock_from} timed another corpus: run stock again")
        stock = earlier["runs"]["stock"]  # itself perhaps taken from a still earlier file: keep when it was measured
        res["runs"]["stock"] = {"wall_s": stock["wall_s"], "from": stock.get("from") or earlier["generated"][:10]}
        skip.add("stock")
    for name, fn in phases:
        if name not in skip:
            log(f"phase {name} (load {loadavg()})")
            res["runs"][name] = fn()
    if "physical" not in skip:
        res["physical"] = phase_physical(work, base, subs)
    if "floor" not in skip:
        res["floor"] = phase_floor(work, len(subs))
    if "plans" not in skip:
        res["plans"] = phase_plans(work)
    short = res["runs"].get("short_2") or res["runs"].get("short_1")
    full = res["runs"].get("full_2") or res["runs"].get("full_1")
    if short and full:
        res["verdict_differences"] = compare_verdicts(short["results"], full["results"])
    res["summary"] = summarize(res)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(json.dumps(res, indent=1))
    table = render(res)
    print(table)
    if doc:
        write_doc(doc, table)
        if res.get("plans"):
            write_doc(doc, render_plans(res["plans"]), "short-plans")
    log(f"results in {out_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
