"""``autograder report``: what the class has not got, one HTML page per assignment for the instructor.

From the result store, counted per student (a student with several notebooks in an assignment
counts once): the distribution of final scores (a histogram, one bar per whole point), the pass
rate of every exercise, every gap (a check that failed, an answer cell that does not run, an
exercise not attempted) with the students it affects, most students first, a table of every
student with a link to their feedback page, and what to revisit next.  Exercises are named by
their titles everywhere.  Plots are drawn with matplotlib and embedded, so a page is one
self-contained file.
"""

from __future__ import annotations

import base64
import html
import io
import math
import os
import sys
from pathlib import Path
from urllib.parse import quote

from autograder.grading.store import ResultStore
from autograder.values import course
from autograder.values.errors import UserError
from autograder.values.files import kept_line, write_for_people
from autograder.values.messages import NOT_STARTED, Failure
from autograder.values.records import ExerciseResult, NotebookResult, Status


def class_results(root: Path, assignment: str) -> list[NotebookResult]:
    store = ResultStore(root)
    found = []
    for _, student, notebook in store.recorded(assignment):
        r = store.get(assignment, student, notebook)
        if r is not None:
            found.append(r)
    return found


def gaps_of(e: ExerciseResult) -> list[Failure]:
    """Why one exercise did not pass, as the grader recorded each failure (:class:`~autograder.values.messages.
    Failure`): the real cause first (an answer cell that raised, before what the tests then raised)."""
    if e.status == Status.PASSED:
        return []
    if e.status == Status.NOT_ATTEMPTED:
        return [Failure.from_dict(c) for c in e.failed_checks] or [Failure("not attempted", "", NOT_STARTED)]
    found = [Failure.from_dict(c) for c in e.failed_checks]
    if not found:  # a result with no failure recorded (a run that stopped): its message says why
        lines = [x.strip() for x in (e.message or "").splitlines() if x.strip()]
        found = [Failure("tests", "", lines[0] if lines else e.status)]
    return sorted(found, key=lambda f: f.check != "answer cell")


def summary(results: list[NotebookResult]) -> dict:
    """The numbers a page shows, each student counted once: totals, pass rates, gaps, what to revisit."""
    students: dict[str, dict] = {}
    maxima: dict[str, float] = {}
    exercises: dict[str, dict] = {}
    gaps: dict[tuple[str, str, str], set] = {}
    order: dict[str, int] = {}
    for r in sorted(results, key=lambda r: (r.student, r.notebook)):
        s = students.setdefault(r.student, {"score": 0.0, "late_penalty": 0.0, "final_score": 0.0, "max_score": 0.0,
                                            "days_late": 0.0, "extension_hours": 0.0, Status.FAILED: [],
                                            Status.NOT_ATTEMPTED: [], "notebooks": [], "notes": []})
        s["score"] += r.score
        s["late_penalty"] += r.late_penalty
        s["final_score"] += r.final_score
        s["max_score"] += r.max_score
        s["days_late"] = max(s["days_late"], r.seconds_late / 86400)
        s["extension_hours"] = max(s["extension_hours"], float(getattr(r, "extension_hours", 0.0) or 0.0))
        s["notebooks"].append(r.notebook)
        s["notes"] += ([r.error] if r.error else []) + [str(n) for n in getattr(r, "notes", None) or []]
        maxima[r.notebook] = max(maxima.get(r.notebook, 0.0), r.max_score)
        for e in r.exercises:
            order.setdefault(e.id, len(order))
            x = exercises.setdefault(e.id, {"title": e.title or e.id, Status.PASSED: set(), Status.FAILED: set(),
                                            Status.NOT_ATTEMPTED: set()})
            x.setdefault(e.status, set()).add(r.student)
            if e.status in (Status.FAILED, Status.NOT_ATTEMPTED):
                s[e.status].append(e.title or e.id)
            for f in gaps_of(e):
                gaps.setdefault((e.id, f.check, f.concept, f.cause), {})[r.student] = f.where
    n = len(students)
    for x in exercises.values():
        for k in (Status.PASSED, Status.FAILED, Status.NOT_ATTEMPTED):
            x[k] = len(x[k])
        x["pass_rate"] = x[Status.PASSED] / n if n else 0.0
    found = [{"exercise": exercises[ex]["title"], "exercise_id": ex, "check": check, "concept": concept,
              "cause": cause, "students": len(who), "who": sorted(who), "where": who}
             for (ex, check, concept, cause), who in gaps.items()]
    found.sort(key=lambda g: (-g["students"], order[g["exercise_id"]], g["check"], g["concept"], g["cause"]))
    return {"students": n, "per_student": students,
            "totals": {k: v["final_score"] for k, v in students.items()},
            "max_score": sum(maxima.values()), "exercises": exercises, "gaps": found,
            "next": next_steps(found, exercises, order)}


def next_steps(gaps: list[dict], exercises: dict, order: dict) -> list[dict]:
    """The sections to revisit: each exercise with a gap, most students first, with its concepts."""
    by_ex: dict[str, dict] = {}
    for g in gaps:
        x = by_ex.setdefault(g["exercise_id"], {"exercise": g["exercise"], "who": set(), "concepts": [],
                                                "raised": set()})
        x["who"].update(g["who"])
        if g["check"] != "not attempted" and g["concept"] and g["concept"] not in x["concepts"]:
            x["concepts"].append(g["concept"])
        if g["check"] != "not attempted" and g["cause"]:
            x["raised"].update(g["who"])  # an error, not a concept: counted, named in the gaps above
    steps = [{"exercise": x["exercise"], "students": len(x["who"]), "concepts": x["concepts"],
              Status.NOT_ATTEMPTED: exercises[ex][Status.NOT_ATTEMPTED], "raised": len(x["raised"]), "id": ex}
             for ex, x in by_ex.items()]
    steps.sort(key=lambda s: (-s["students"], order[s["id"]]))
    return steps


def gap_text(g: dict) -> str:
    """A gap's concept, its cause, or both ("your function raised RuntimeError; concept: ...")."""
    if g["cause"] and g["concept"]:
        return f"{g['cause']}; concept: {g['concept']}"
    return g["cause"] or g["concept"]


def who_text(g: dict) -> str:
    """The students of a gap, each with where their code raised it ("ann (answer cell, line 4)")."""
    return ", ".join(f"{who} ({g['where'][who]})" if g["where"].get(who) else who for who in g["who"])


def histogram_counts(totals: list[float], max_score: float) -> list[int]:
    """Students per whole point: bar ``k`` counts the final scores from ``k`` up to (not including) ``k + 1``."""
    top = max(0, math.floor(max_score + 1e-9))
    counts = [0] * (top + 1)
    for t in totals:
        counts[min(top, max(0, math.floor(t + 1e-9)))] += 1
    return counts


def _histogram(counts: list[int]) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    fig, ax = plt.subplots(figsize=(6, 3))
    ax.bar(range(len(counts)), counts, width=0.9, color="#4c72b0", edgecolor="white")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlim(-0.6, len(counts) - 0.4)
    ax.set_xlabel("final score, after late penalties (whole points)")
    ax.set_ylabel("students")
    ax.set_title("Final scores")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode()


def _aside(step: dict) -> str:
    """How many of an exercise's students did not attempt it, and how many had their answer raise an error."""
    parts = ([f"{step[Status.NOT_ATTEMPTED]} did not attempt it"] if step[Status.NOT_ATTEMPTED] else []) + \
        ([f"{step['raised']} whose answer raised an error"] if step.get("raised") else [])
    return f" ({', '.join(parts)})" if parts else ""


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def render(assignment: str, s: dict, feedback_base: str | None = None) -> str:
    """The page; ``feedback_base`` is the feedback folder relative to the page (links to each student's pages)."""
    e = html.escape
    n = s["students"]
    rows = "".join(f"<tr><td>{e(x['title'])}</td><td>{x['pass_rate']:.0%}</td><td>{x['passed']}</td>"
                   f"<td>{x['failed']}</td><td>{x['not attempted']}</td></tr>" for x in s["exercises"].values())
    gaps = "".join(f"<tr><td>{e(g['exercise'])}</td><td>{e(g['check'])}</td><td>{g['students']}</td>"
                   f"<td>{e(gap_text(g))}</td><td>{e(who_text(g))}</td></tr>" for g in s["gaps"])

    def links(student: str, notebooks: list[str]) -> str:
        if feedback_base is None:
            return ""
        return " ".join(f'<a href="{e(feedback_base)}/{quote(student)}/{quote(assignment)}/{quote(nb)}.html">'
                        f"{e(nb)}</a>" for nb in notebooks)

    people = "".join(
        f"<tr><td>{e(who)}</td><td>{p['final_score']:.4g}</td><td>{p['score']:.4g}</td>"
        f"<td>{'−' + format(p['late_penalty'], '.4g') if p['late_penalty'] else '0'}</td>"
        f"<td>{p['days_late']:.2f}</td><td>{format(p['extension_hours'], 'g') + ' h' if p['extension_hours'] else ''}</td>"
        f"<td>{e('; '.join(p['failed']))}</td><td>{e('; '.join(p['not attempted']))}</td>"
        f"<td>{links(who, p['notebooks'])}</td><td>{e('; '.join(p['notes']))}</td></tr>"
        for who, p in s["per_student"].items())
    steps = "".join(
        f"<li><b>{e(x['exercise'])}</b>: {x['students']} of {_plural(n, 'student')}" + _aside(x)
        + (f". Revisit: {e('; '.join(x['concepts']))}" if x["concepts"] else "") + "</li>"
        for x in s["next"])
    counts = histogram_counts(list(s["totals"].values()), s["max_score"]) if s["totals"] else []
    described = "; ".join(f"{k} points: {_plural(c, 'student')}" for k, c in enumerate(counts))
    img = (f'<img alt="final scores, after late penalties: {e(described)}" '
           f'src="data:image/png;base64,{_histogram(counts)}">') if counts else ""
    return f"""<!DOCTYPE html><html><head><meta charset="utf-8"><title>Class report: {e(assignment)}</title>
<style>body{{font-family:sans-serif;max-width:70em;margin:2em auto}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:.3em .6em;text-align:left;vertical-align:top}}</style></head><body>
<h1>Class report: {e(assignment)}</h1>
<p>{_plural(n, 'student')}; every score here is a final score, after late penalties, out of {s['max_score']:g}.</p>
{img}
<p>Each bar counts the students whose final score is at least that many whole points and less than one more.</p>
<h2>Exercises</h2>
<table><tr><th>exercise</th><th>pass rate</th><th>passed</th><th>failed</th><th>not attempted</th></tr>{rows}</table>
<h2>What the class has not got</h2>
<p>Each gap (a check that failed, an answer cell that raised, an exercise not attempted), with the
number of students it affects, most students first.</p>
<table><tr><th>exercise</th><th>check</th><th>students</th><th>concept or cause</th><th>who</th></tr>{gaps}</table>
<h2>Students</h2>
<table><tr><th>student</th><th>final score (after late penalty)</th><th>score</th><th>late penalty</th>
<th>days late</th><th>extension</th><th>failed</th><th>not attempted</th><th>feedback</th><th>notes</th></tr>{people}</table>
<h2>What to do next</h2>
{f'<p>The sections most students should revisit, most students first:</p><ol>{steps}</ol>' if steps
 else '<p>Every student passed every exercise.</p>'}
</body></html>
"""


def run(args) -> int:
    root = course.find_root()
    names = course.assignment_names(root, args.assignments or None)
    out_dir = Path(args.to)
    if out_dir.exists() and not out_dir.is_dir():
        raise UserError(f"--to {out_dir} is a file: --to names the folder the reports go in (ASSIGNMENT.html each)")
    feedback = os.path.relpath(course.folder(root, "feedback"), out_dir.resolve()).replace(os.sep, "/")
    written, missing = 0, []
    for name in names:
        results = class_results(root, name)
        if not results:
            missing.append(name)
            continue
        page = out_dir / f"{name}.html"
        aside = write_for_people(page, render(name, summary(results), feedback), root)
        if aside is not None:
            print(kept_line(page, aside))
        written += 1
    if not written:
        which = " ".join(args.assignments or [])
        raise UserError(f"nothing graded yet{' for ' + which if which else ''}: "
                        f"run `autograder grade{' ' + which if which else ''}` first")
    if missing and args.assignments:
        print(f"not graded yet, no report: {', '.join(missing)}", file=sys.stderr)
    print(f"wrote {written} class report(s) under {out_dir}/")
    return 0
