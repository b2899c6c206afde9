"""``autograder grade``: grade submissions into nbgrader's gradebook, and tell the instructor what changed.

The grading itself is a library call (:func:`autograder.adapters.batch.grade`: plan, references, run on a
backend, record with the one writer), which nbgrader's *Autograde* makes too.  This command turns its
arguments into a :class:`~autograder.adapters.batch.GradeRequest` and prints the :class:`~autograder.
adapters.batch.Outcome`: a progress bar (a line per notebook in a log), the table, what changed and why,
where the submission times come from, and the warnings.
"""

from __future__ import annotations

import sys

from autograder.adapters import late
from autograder.adapters.batch import GradeRequest, ReferenceFailed, grade
from autograder.adapters.recorder import Change
from autograder.adapters.submitted import Found
from autograder.grading.jobs import Job
from autograder.grading.steps.restore import VARIANT_NOTE
from autograder.values.records import NotebookResult


def run(args) -> int:
    req = GradeRequest.from_args(args)
    try:
        out = grade(req, print, Progress())
    except ReferenceFailed as exc:
        print(str(exc), file=sys.stderr)
        return 2
    print(table(out.results.values()))
    print(f"graded {out.graded} notebook(s) in {out.seconds:.1f} s with {out.workers} worker(s)")
    print(trial_list(out.changes, req.seed) if req.trial else change_list(out.changes, out.taken_back))
    print(time_sources(out.results.values()))
    for warning in (untrusted_times(out.results.values()),
                    other_variants(out.results.values(), req.default_variant),
                    earlier_releases(out.results.values())):
        if warning:
            print(warning)
    for f, when in out.held:
        print(f"held, not graded: {f.student} {f.assignment.name}/{f.notebook}: nbgrader's timestamp.txt says "
              f"{when!r}, which is not a time (nbgrader's Autograde refuses it too); correct "
              f"{f.path.parent / 'timestamp.txt'}, or give the time: autograder grade {f.assignment.name} "
              f"--student {f.student} --submitted-at TIME", file=sys.stderr)
    if req.trial:
        print(f"nothing was kept: this run with --seed {req.seed} recorded no grade, autograded notebook or "
              "result, and the recorded grades stand (a plain grade keeps the term's seed)", flush=True)
    return 0


def _score(r: NotebookResult) -> str:
    return f"{r.final_score:g}/{r.max_score:g}" + (f" (late: -{r.late_penalty:g})" if r.late_penalty else "")


def change_list(changes: list[Change], taken_back: list[tuple[Found, NotebookResult]] = ()) -> str:
    """What changed since the previous recorded results: old score -> new score and why, per student and notebook,
    and each grade taken back (a notebook held until its submission time reads)."""
    first = [c for c in changes if c.before is None]
    again = sorted((c for c in changes if c.before is not None), key=lambda c: (c.assignment, c.student, c.notebook))
    moved = [c for c in again if abs(c.before.final_score - c.after.final_score) > 1e-9]
    lines = ["changes since the last recorded results:"]
    for f, before in sorted(taken_back, key=lambda t: (t[0].assignment.name, t[0].student, t[0].notebook)):
        lines.append(f"  {f.student:<16} {f.assignment.name}/{f.notebook:<22} {_score(before)} -> taken back "
                     "(held until its submission time reads)")
    for c in moved:
        lines.append(f"  {c.student:<16} {c.assignment}/{c.notebook:<22} {_score(c.before)} -> {_score(c.after)}"
                     f"  ({'; '.join(c.why) or 'recorded again'})")
    same = [c for c in again if c not in moved]
    if same:
        reasons = sorted({w for c in same for w in c.why} or {"recorded again"})
        lines.append(f"  {len(same)} recorded again with the same score ({'; '.join(reasons)})")
    if first:
        lines.append(f"  {len(first)} graded for the first time")
    if len(lines) == 1:
        lines.append("  none")
    return "\n".join(lines)


def trial_list(changes: list[Change], seed: int) -> str:
    """This run's scores beside the recorded results, for a run with ``--seed`` (which keeps nothing)."""
    ordered = sorted(changes, key=lambda c: (c.assignment, c.student, c.notebook))
    differ = [c for c in ordered if c.before is not None and abs(c.before.final_score - c.after.final_score) > 1e-9]
    lines = [f"this run (hidden-test seed {seed}) beside the recorded results:"]
    for c in differ:
        lines.append(f"  {c.student:<16} {c.assignment}/{c.notebook:<22} recorded {_score(c.before)} "
                     f"(seed {c.before.seed}), this run {_score(c.after)}")
    same = sum(1 for c in ordered if c.before is not None and c not in differ)
    if same:
        lines.append(f"  {same} with the same score as recorded")
    first = sum(1 for c in ordered if c.before is None)
    if first:
        lines.append(f"  {first} with no recorded result")
    if len(lines) == 1:
        lines.append("  none")
    return "\n".join(lines)


def earlier_releases(results) -> str:
    """The line for notebooks holding a test or locked cell as an earlier release handed it out: the instructor
    changed that cell since; nobody edited it, and every notebook ran the current one."""
    held = [r for r in results if r.earlier_release]
    if not held:
        return ""
    cells = sorted({gid for r in held for gid in r.earlier_release})
    return (f"{len(held)} notebook(s) were handed out before a test or locked cell last changed "
            f"({', '.join(cells[:10])}{' ...' if len(cells) > 10 else ''}): not edits; the current cells were run, "
            "as for every notebook")


def time_sources(results) -> str:
    """Where the submission times of this summary come from, and how many of each."""
    counts: dict[str, int] = {}
    for r in results:
        counts[r.submitted_at_source or "none"] = counts.get(r.submitted_at_source or "none", 0) + 1
    return "submission times from: " + ", ".join(f"{source} ({n})" for source, n in sorted(counts.items()))


def other_variants(results, default_variant: bool = False) -> str:
    """The warning for submissions that hold another variant than the one their student is graded on (their
    own, drawn from their id, or the default one with ``--default-variant``): one such notebook was edited or
    fetched without the course's settings; many say the variants' secret changed (``.autograder/
    variant_seeds.json`` replaced or lost), that the class got one copy for all, or, with ``--default-variant``,
    that it got its own copies."""
    named = sorted({r.student for r in results if any(VARIANT_NOTE in t for t in r.tampering)})
    if not named:
        return ""
    return (f"warning: {len(named)} student(s) handed in another variant than the one they are graded on, and were "
            f"graded on that one: {', '.join(named[:20])}{' ...' if len(named) > 20 else ''}.\n"
            + ("  Everyone was graded on the default variant (--default-variant): if these students were handed "
               "their own copies, grade without it." if default_variant else
               "  If most of a class is named, the variants were not the ones handed out: restore .autograder/"
               "variant_seeds.json from a backup if it was replaced, and hand out one copy per student (docs/instructors.md: "
               "per-student variants); if the class was handed one copy for all on purpose (handout "
               "--default-variant), grade with --default-variant."))


def untrusted_times(results) -> str:
    """The warning for submissions that only a file's time makes late (no penalty was applied on it)."""
    named = sorted({r.student for r in results
                    if any(n.startswith((late.UNTRUSTED_NOTE, late.UNREADABLE_NOTE)) for n in r.notes)})
    if not named:
        return ""
    return (f"warning: {len(named)} student(s) have no submission time a late penalty may rest on (only a file's "
            f"modification time, which says when a file was copied, or a time that does not read): no late penalty "
            f"was applied to them: {', '.join(named)}.\n"
            "  Give the real times: collect through the LMS download (autograder collect) or nbgrader's exchange "
            "(nbgrader collect), or per student: autograder grade ASSIGNMENT --student ID --submitted-at 'YYYY-MM-DD "
            "HH:MM:SS UTC'.")


class Progress:
    """Grading progress: a bar on a terminal, one plain line per notebook in a log."""

    def __init__(self) -> None:
        self.total, self.count, self.stopped, self.bar = 0, 0, 0, None

    def start(self, total: int) -> None:
        self.total = total
        if self.total and sys.stderr.isatty():
            from tqdm.auto import tqdm

            self.bar = tqdm(total=self.total, desc="grading", unit="nb")

    def done(self, job: Job, result: NotebookResult) -> None:
        self.count += 1
        self.stopped += bool(result.error)
        if self.bar is not None:
            self.bar.set_postfix(runs_stopped_early=self.stopped)
            self.bar.update(1)
        else:
            print(f"graded {self.count}/{self.total}: {job.student} {job.assignment}/{job.notebook} "
                  f"{result.score:g}/{result.max_score:g}" + (f" (run stopped early: {result.error[:80]})"
                                                              if result.error else ""), flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def table(results) -> str:
    """The instructor's summary: one line per notebook (score, late penalty, final score), with what went
    wrong, what was tampered with and what the grader noticed."""
    rows = sorted(results, key=lambda r: (r.assignment, r.student, r.notebook))
    lines = [f"{'student':<16} {'notebook':<22} {'score':>9} {'late':>6} {'final':>6}  notes"]
    for r in rows:
        notes = ([r.error] if r.error else []) + r.tampering + r.notes
        late_col = f"-{r.late_penalty:g}" if r.late_penalty else ""
        lines.append(f"{r.student:<16} {r.notebook:<22} {r.score:>4g}/{r.max_score:<4g} {late_col:>6} "
                     f"{r.final_score:>6g}  {_cut('; '.join(notes))}")
    return "\n".join(lines)


def _cut(text: str, width: int = 160) -> str:
    """A table cell's notes, cut where they run long, saying so (the whole text is in the export's notes)."""
    return text if len(text) <= width else text[: width - 40].rstrip() + " ... (all of it: autograder export)"
