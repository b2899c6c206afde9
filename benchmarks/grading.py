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
6. **profile**: grades a sample again (1 worker, in this script's process, listening to the
   grader's own timing hook, :mod:`autograder.values.timing`) to split a job's time into interpreter and kernel start,
   ``import torch``, the notebook's cells (answer cells, test cells, the rest), nbgrader's
   database work, the sandbox and the reference run.

The script is split by job: ``grading_measure`` (timing and memory of a command),
``grading_phases`` (corpus, plain, stock, ours), ``grading_profile`` (where a job's time goes,
from the grader's own timing hook) and ``grading_report`` (summary, targets, the table).

Wall-clock throughput is noisy on a shared machine: the load average and the CPU seconds of
each phase are recorded next to it (CPU seconds are much less sensitive to other load).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import sys
import tempfile
import traceback
from pathlib import Path

from grading_measure import ROOT, loadavg, log, machine_info  # noqa: E402
from grading_phases import (  # noqa: E402
    build_corpus,
    notebook_problem,
    phase_ours,
    phase_plain,
    phase_profile,
    phase_solutions,
    phase_stock,
)
from grading_profile import profile_main  # noqa: E402
from grading_report import breakdown, memory_verdict, per_notebook, render, summarize, targets, write_doc  # noqa: E402

# Every run gets one intra-op thread per kernel: stock nbgrader inherits it from here, the grader gives
# each of 2 workers on 2 cores as much (autograder.grading.workers.worker_slots), and the tests use it.
os.environ["OMP_NUM_THREADS"] = "1"

RESULTS = ROOT / "benchmarks" / "results" / "grading.json"
DOC = ROOT / "docs" / "benchmarks.md"


def copy_course(dest: Path) -> Path:
    """A private copy of the course and its sample submissions: the repository is never touched."""
    from autograder.values import course

    course.copy_course(ROOT, dest)
    shutil.copytree(ROOT / "examples", dest / "examples", ignore=shutil.ignore_patterns("__pycache__"))
    return dest


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

    from autograder.sandbox import launch as sandbox
    from autograder.values import course

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




if __name__ == "__main__":
    sys.exit(main())
