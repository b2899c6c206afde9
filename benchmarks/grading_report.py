"""The grading benchmark's report: the summary, the targets and the table in ``docs/benchmarks.md``."""

from __future__ import annotations

import statistics
from pathlib import Path

from grading_phases import KINDS  # noqa: E402

START, END = "<!-- bench:start -->", "<!-- bench:end -->"


NODE_GIB, NODE_WORKERS = 24, 8


TARGET_RATIO, TARGET_OVERHEAD = 3.0, 1.3


SCALE = 100  # submissions per notebook in the extrapolation to a class


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
        # "kernel start: the kernel's CPU time" and its wait for a CPU are parts of "kernel start", not phases
        parts = [k for k in pj if k.startswith("kernel start: ")]
        order = sorted((k for k in pj if k not in ("job total (run_job)", "execute (kernel run, total)", *parts)),
                       key=lambda k: -pj[k])
        for k in order:
            L.append(f"| {k} | {pj[k]:.2f} | {100 * pj[k] / total:.0f}% |")
            if k.startswith("kernel start"):
                L += [f"| &nbsp;&nbsp;of which {p[len('kernel start: '):]} | {pj[p]:.2f} | |" for p in parts]
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
