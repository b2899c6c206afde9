"""The grading benchmark's phases: the corpus, plain execution, stock nbgrader, and ``autograder grade``."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import sqlite3
import time
from pathlib import Path

from grading_measure import BIN, PY, ROOT, env_for_tools, loadavg, log, run_measured  # noqa: E402

KINDS = {"alice": "complete", "bob": "partial", "carol": "buggy", "dave": "crashing"}


def notebook_problem(root: Path, name: str) -> str | None:
    """Why an assignment cannot be benchmarked as it stands (mid-edit), or None."""
    from autograder.values import course

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


def phase_solutions(work: Path, base: Path, assignments: list[str]) -> dict:
    """Run each solution notebook once, plainly (hidden tests in local mode), in a copy of the course."""
    from autograder.values import course

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
    from autograder.grading.workfolder import copy_support_files

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

        r = run_measured([PY, "-m", "nbgrader", "autograde", name, "--force", "--GradeInSandbox.trusted_input=True"], course_dir, env,
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
    cmd = [PY, str(Path(__file__).resolve().with_name("grading.py")), "_profile", "--course", str(course_dir), "--submissions",
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
