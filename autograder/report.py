"""``autograder report``: what the class has not got, one HTML page per assignment for the instructor.

From the result store: the distribution of scores (a histogram), the pass rate of every
exercise, and for every check that failed (a hidden check by name, or the visible tests) how
many students failed it and the concept it names, most failed first.  Plots are drawn with
matplotlib and embedded, so a page is one self-contained file.
"""

from __future__ import annotations

import base64
import html
import io
import sys
from collections import Counter
from pathlib import Path

from . import course
from .records import NotebookResult
from .store import ResultStore


def class_results(root: Path, assignment: str) -> list[NotebookResult]:
    store = ResultStore(root)
    found = []
    base = store.base / assignment
    for path in sorted(base.glob("*/*.json")) if base.is_dir() else []:
        r = store.get(assignment, path.parent.name, path.stem)
        if r is not None:
            found.append(r)
    return found


def summary(results: list[NotebookResult]) -> dict:
    """The numbers a page shows: per-student totals, per-exercise pass rates, per-check failures."""
    totals: dict[str, float] = {}
    maxima: dict[str, float] = {}
    exercises: dict[str, dict] = {}
    checks: Counter = Counter()
    concepts: dict[tuple, str] = {}
    for r in results:
        totals[r.student] = totals.get(r.student, 0.0) + r.final_score
        maxima[r.student] = maxima.get(r.student, 0.0) + r.max_score
        for e in r.exercises:
            x = exercises.setdefault(e.id, {"title": e.title or e.id, "passed": 0, "failed": 0, "not attempted": 0})
            x[e.status] += 1
            for c in e.failed_checks:
                key = (e.id, c.get("check", "?"))
                checks[key] += 1
                concepts.setdefault(key, c.get("concept", ""))
    students = len(totals)
    for x in exercises.values():
        x["pass_rate"] = x["passed"] / students if students else 0.0
    failing = [{"exercise": ex, "check": name, "students": n, "concept": concepts[(ex, name)]}
               for (ex, name), n in checks.most_common()]
    return {"students": students, "totals": totals, "max_score": max(maxima.values(), default=0.0),
            "exercises": exercises, "failing_checks": failing}


def _histogram(totals: list[float], max_score: float) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3))
    bins = max(1, min(20, int(max_score) + 1))
    ax.hist(totals, bins=bins, range=(0, max(max_score, 1)), color="#4c72b0", edgecolor="white")
    ax.set_xlabel("score")
    ax.set_ylabel("students")
    ax.set_title("Scores")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode()


def render(assignment: str, s: dict) -> str:
    e = html.escape
    rows = "".join(f"<tr><td>{e(x['title'])}</td><td>{x['pass_rate']:.0%}</td><td>{x['passed']}</td>"
                   f"<td>{x['failed']}</td><td>{x['not attempted']}</td></tr>" for x in s["exercises"].values())
    checks = "".join(f"<tr><td>{e(c['exercise'])}</td><td>{e(c['check'])}</td><td>{c['students']}</td>"
                     f"<td>{e(c['concept'])}</td></tr>" for c in s["failing_checks"])
    img = _histogram(list(s["totals"].values()), s["max_score"]) if s["totals"] else ""
    return f"""<!DOCTYPE html><html><head><meta charset="utf-8"><title>Class report: {e(assignment)}</title>
<style>body{{font-family:sans-serif;max-width:60em;margin:2em auto}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:.3em .6em;text-align:left}}</style></head><body>
<h1>Class report: {e(assignment)}</h1>
<p>{s['students']} student(s); scores after late penalties, out of {s['max_score']:g}.</p>
{f'<img alt="score histogram" src="data:image/png;base64,{img}">' if img else ''}
<h2>Exercises</h2>
<table><tr><th>exercise</th><th>pass rate</th><th>passed</th><th>failed</th><th>not attempted</th></tr>{rows}</table>
<h2>What the class has not got</h2>
<p>Each check that failed, with the number of students who failed it and the concept it names.</p>
<table><tr><th>exercise</th><th>check</th><th>students</th><th>concept</th></tr>{checks}</table>
</body></html>
"""


def report_command(args) -> int:
    root = course.find_root()
    names = args.assignments or [a.name for a in course.assignments(root)]
    out_dir = Path(args.to)
    written = 0
    for name in names:
        results = class_results(root, name)
        if not results:
            continue
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / f"{name}.html").write_text(render(name, summary(results)), encoding="utf-8")
        written += 1
    if not written:
        print("no graded results to report on: run autograder grade first", file=sys.stderr)
        return 2
    print(f"wrote {written} class report(s) under {out_dir}/")
    return 0
