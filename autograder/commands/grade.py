"""``autograder grade``: plan a batch, run it on a backend, record each result as it arrives.

1. **Plan.** Find the submissions (nbgrader's ``submitted/STUDENT/ASSIGNMENT/`` layout), load
   each notebook's course data once (:class:`~autograder.grading.coursedata.NotebookData`) and keep
   every result the store already holds for the same submission and solution.
2. **References.** Run each notebook's reference solution on the backend, where the
   submissions will run (once per per-student variant that a submission needs).  If one fails, stop
   before anything is recorded.
3. **Grade.** The backend (:mod:`autograder.grading.workers` or :mod:`autograder.grading.slurm`) runs the
   jobs; this process alone records each output (:mod:`autograder.adapters.gradebook`,
   :mod:`autograder.grading.store`), and whatever goes wrong while recording one job becomes that
   job's result.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from autograder import PACKAGE_DIR
from autograder.adapters import late, times
from autograder.adapters.gradebook import ensure_in_gradebook, recorded_in_gradebook, withdraw, write_result
from autograder.grading import seeds as seeds_mod
from autograder.grading.coursedata import NotebookData
from autograder.grading.execute import Limits
from autograder.grading.jobs import INPUT_WORDS, Job, JobOutput, failed_result, inputs_key, run_inputs
from autograder.grading.store import Entry, ResultStore
from autograder.grading.submission import VARIANT_NOTE, notebook_ids, renamed_notebook
from autograder.values import course, outputs, timing
from autograder.values.errors import UserError
from autograder.values.records import NotebookResult


class ReferenceFailed(RuntimeError):
    """A reference solution could not run where the submissions will: nothing may be graded."""


@dataclass
class Found:
    """One notebook of one student's submission folder, as planned for grading."""

    assignment: course.Assignment
    notebook: str
    student: str
    path: Path  # the file to grade (NOTEBOOK.ipynb, or the one renamed copy that carries its cells)
    notes: list[str] = field(default_factory=list)


def locate(folder: Path, names: dict[str, set[str]]) -> tuple[dict[str, tuple[Path, str]], list[str]]:
    """Which file of a submission folder to grade as each notebook, and what the folder holds besides.

    ``names`` maps each notebook of the assignment to its released grade ids.  A notebook is its own
    file name; failing that, the one notebook of the folder that carries its cells and no other
    notebook's (``01_tensors (1).ipynb``, ``01_tensors-Copy1.ipynb``, another case).  Returns
    {notebook: (path, note)} and one note per notebook file graded as nothing."""
    files = sorted(p for p in folder.glob("*.ipynb") if p.is_file() and not p.is_symlink())
    found: dict[str, tuple[Path, str]] = {}
    for nb in names:
        exact = folder / f"{nb}.ipynb"
        if exact in files:
            found[nb] = (exact, "")
    rest = [p for p in files if p not in {f for f, _ in found.values()}]
    carriers = {p: renamed_notebook(p, names) for p in rest}
    for nb in names:
        if nb in found:
            continue
        mine = [p for p, carried in carriers.items() if carried == nb]
        if len(mine) == 1:
            found[nb] = (mine[0], f"graded {mine[0].name} as {nb}.ipynb (renamed; recognised by its cells)")
        elif len(mine) > 1:
            found[nb] = (folder / f"{nb}.ipynb", f"{len(mine)} notebooks carry the cells of {nb}.ipynb "
                         f"({', '.join(p.name for p in mine)}): none graded; rename the right one {nb}.ipynb")
    used = {f for f, _ in found.values()}
    extras = [f"{p.name} is not graded (it is not a notebook of this assignment)"
              for p in files if p not in used and not any(p.name in n for _, n in found.values())]
    return found, extras


def discover(root: Path, subs: Path, assignments: list[str], students: list[str] | None) -> list[Found]:
    """Every submitted notebook to grade, in nbgrader's ``submitted/STUDENT/ASSIGNMENT/`` layout."""
    known = set(course.assignment_names(root, None))
    names = course.assignment_names(root, assignments) if assignments else \
        sorted({p.name for p in subs.glob("*/*") if p.is_dir()} & known)
    folders = sorted(p for p in subs.iterdir() if p.is_dir() and not p.name.startswith("."))
    if students:
        missing = [s for s in students if not any((subs / s / a).is_dir() for a in names)]
        if missing:
            have = sorted({p.name for p in folders if any((p / a).is_dir() for a in names)})
            raise UserError(f"no submission of {', '.join(missing)} for {', '.join(names) or 'any assignment'} in "
                            f"{subs} (students with a submission: {', '.join(have[:20]) or 'none'}"
                            f"{' ...' if len(have) > 20 else ''})")
    out = []
    for name in names:
        a = course.Assignment(name, root)
        release_ids = notebook_ids(a)
        for sdir in folders:
            if (students and sdir.name not in students) or not (sdir / name).is_dir():
                continue
            found, extras = locate(sdir / name, release_ids)
            for nb in a.notebooks():
                path, note = found.get(nb, (sdir / name / f"{nb}.ipynb", ""))
                out.append(Found(a, nb, sdir.name, path, [n for n in [note] if n] + extras))
    return out


def check_references(refs: dict) -> None:
    bad = {k: r.failure for k, r in refs.items() if not r.ok}
    if bad:
        lines = [f"  {a}/{n}{f' (variant {t})' if t else ''}: {why}" for (a, n, t), why in sorted(bad.items())]
        raise ReferenceFailed(
            "grade stopped before recording anything: the reference solution did not run where the "
            "submissions would run, so every submission would be judged wrongly.\n" + "\n".join(lines) +
            "\nCheck that the sandbox works (bubblewrap, run as root), that the kernels import this "
            f"autograder package ({PACKAGE_DIR}), and that solutions/ passes its own tests.")


def make_backend(args, root: Path, workers: int):
    if getattr(args, "backend", "local") == "slurm":
        from autograder.grading.slurm import SlurmBackend

        return SlurmBackend(args, root / ".autograder" / "submitit")
    from autograder.grading.workers import LocalBackend

    return LocalBackend(workers)


def set_submitted_at(root: Path, found: list[Found], when: str) -> None:
    """Record the instructor's word for the submission time of each submission planned (``--submitted-at``),
    kept outside the submission where no learner can write it (:mod:`autograder.adapters.times`)."""
    parsed = late.parse_time(when)
    if parsed is None:
        raise UserError(f"--submitted-at {when!r} is not a time: give one such as '2026-11-20 17:05:00 UTC'")
    stamp = parsed.strftime("%Y-%m-%d %H:%M:%S.%f UTC")
    for key in sorted({(f.assignment.name, f.student, f.path.parent) for f in found}):
        assignment, student, folder = key
        before = times.recorded(root, assignment, student, folder)
        if before != (stamp, times.INSTRUCTOR):
            times.record(root, assignment, student, folder, stamp, times.INSTRUCTOR)
            print(f"{student}/{assignment}: submitted at {stamp}" + (f" (was {before[0]}, {before[1]})" if before else ""))


def one_notebook(root: Path, assignment: str, student: str, notebook: str) -> argparse.Namespace:
    """The arguments of ``grade`` for one notebook of one student, graded again whatever is recorded, in
    this process: what nbgrader's *Autograde* of that notebook runs (:mod:`autograder.commands.autograde`)."""
    return argparse.Namespace(
        root=str(root), assignments=[assignment], student=[student], notebooks=[notebook], submissions=None,
        seed=None, new_seed=False, submitted_at=None, force=True, full=False, retry_errors=False, workers=1,
        backend="local", no_sandbox=False)


def run(args) -> int:
    from autograder.grading.workers import default_workers

    root = Path(args.root) if getattr(args, "root", None) else course.find_root()
    trial = args.seed is not None  # one run with that seed, which keeps nothing (README: one hidden-test seed)
    if trial and getattr(args, "new_seed", False):
        raise UserError("--seed N grades one run that keeps nothing and --new-seed draws the term's seed: give one")
    if trial and getattr(args, "submitted_at", None):
        raise UserError("--seed N keeps nothing, and --submitted-at keeps a submission time: give the time in a "
                        "run without --seed")
    subs = Path(args.submissions).resolve() if args.submissions else course.folder(root, "submitted")
    db_url = course.gradebook_url(root)
    for warning in late.check(root, subs, db_url):  # the late policy reads, before anything is graded
        print(warning)
    if not subs.is_dir():
        raise UserError(f"no submissions folder {subs}: collect first (autograder collect, or nbgrader collect), "
                        "or give --submissions FOLDER")
    todo = discover(root, subs, args.assignments, args.student)
    if getattr(args, "notebooks", None):  # nbgrader's Autograde grades one notebook at a time
        todo = [f for f in todo if f.notebook in args.notebooks]
    if not todo:
        raise UserError(f"nothing to grade in {subs} (nbgrader's layout: STUDENT/ASSIGNMENT/NOTEBOOK.ipynb)")
    if not args.submissions and not args.student:
        orphans = ungraded_away(root, subs, sorted({f.assignment.name for f in todo}))
        if orphans:
            print(f"recorded grades whose submission is no longer in {subs.name}/ (they stand, and export, feedback "
                  f"and report use them): {', '.join(orphans)}; a student added by mistake: nbgrader db student "
                  "remove ID --force")
    if getattr(args, "submitted_at", None):
        if not args.student:
            raise UserError("--submitted-at sets one student's submission time: give --student too")
        set_submitted_at(root, todo, args.submitted_at)
    names = sorted({f.assignment.name for f in todo})
    seeds = ({n: args.seed for n in names} if args.seed is not None
             else seeds_mod.term_seeds(root, names, rotate=getattr(args, "new_seed", False)))
    sandbox_on = not args.no_sandbox
    limits = Limits.from_env()
    store = ResultStore(root)
    data: dict[tuple[str, str, str], NotebookData] = {}
    secrets: dict[str, bytes] = {}  # each assignment's variant secret, read once
    jobs, kept, recorded = [], [], []
    in_gradebook = recorded_in_gradebook(db_url)
    held = {id(f): (f, when) for f in todo if (when := unreadable_nbgrader_time(root, f)) is not None}
    taken_back: list[tuple[Found, NotebookResult]] = []  # grades that no longer stand: in the change list
    for f, _ in held.values():  # nbgrader's Autograde refuses these too: neither path grades them until it reads
        if trial:
            continue  # a trial run takes nothing back either
        before = store.get(f.assignment.name, f.student, f.notebook)
        if store.remove(f.assignment.name, f.student, f.notebook) or \
                (f.student, f.assignment.name, f.notebook) in in_gradebook:
            withdraw(root, db_url, f.assignment.name, f.student, f.notebook, f.path.parent)
            if before is not None:
                taken_back.append((f, before))
    todo = [f for f in todo if id(f) not in held]
    # graded on the student's own variant, drawn again from the student id, unless the class was handed the
    # default one (its cell in a submission that holds another is then restored to the default, with a note)
    default_variant = getattr(args, "default_variant", False)
    for f in todo:
        d = NotebookData.loaded(f.assignment, f.notebook)
        if d.has_variants and not default_variant:
            if f.assignment.name not in secrets:
                secrets[f.assignment.name] = seeds_mod.variant_secret(root, f.assignment.name)
            d = d.for_student(f.student, secrets[f.assignment.name])
        data[d.key] = d
        inputs = run_inputs(d, f.path, seeds[f.assignment.name], limits)
        job = Job(d, f.student, str(f.path), seeds[f.assignment.name], sandbox_on, inputs_key(inputs),
                  full=getattr(args, "full", False))
        prior = store.entry(f.assignment.name, f.student, f.notebook)
        graded = course.folder(root, "autograded", f.student, f.assignment.name, f"{f.notebook}.ipynb")
        rerun = (trial or args.force or prior is None or prior.key != job.key
                 or (getattr(args, "retry_errors", False) and prior.result.grader_error)
                 # what the run wrote is gone (the gradebook or the autograded notebook): it runs again
                 or (f.student, f.assignment.name, f.notebook) not in in_gradebook
                 or (prior.result.error is None and not graded.is_file()))
        (jobs if rerun else kept).append((job, f, prior, inputs))
    changes: list[Change] = []
    registered: set[str] = set()

    def register(assignments) -> None:
        todo_names = sorted(set(assignments) - registered)
        if todo_names:
            with timing.unit("registration", assignments=todo_names):
                ensure_in_gradebook(root, todo_names, db_url)
            registered.update(todo_names)

    def terms_of(job: Job) -> late.Terms:
        """What decides this notebook's lateness now: the policy in force and the submission's time."""
        folder = Path(job.path).parent
        return late.Terms.of(root, job.assignment, job.student,
                             *times.submission_time(root, job.assignment, job.student, folder))

    def record(job: Job, f: Found, prior: Entry | None, inputs: dict, terms: late.Terms, result: NotebookResult,
               executed: nbformat.NotebookNode | None, runner: dict, why: list[str] | None) -> NotebookResult:
        """Record one result with its lateness (``terms``: :func:`terms_of`); whatever goes wrong
        while recording it becomes its recorded result.  ``why`` None: a stored result recorded again for a
        change of policy (nothing ran); else why it ran again."""
        result.notes = list(f.notes)  # what the planner noticed; the lateness adds its own (late.Terms.apply)
        result.file = f.path.name if f.path.name != f"{job.notebook}.ipynb" else ""
        terms.apply(result)
        if trial:  # shown beside the recorded result, written nowhere
            changes.append(Change(job.student, job.assignment, job.notebook, prior.result if prior else None,
                                  result, why or []))
            return result
        try:
            with timing.unit("write", student=job.student, notebook=job.notebook), timing.phase("gradebook write"):
                write_result(root, db_url, job, result, terms, executed, rerecord=why is None)
        except Exception as exc:  # noqa: BLE001 - e.g. an output that would not serialise
            reason = f"grader error: the result could not be recorded ({type(exc).__name__}: {str(exc)[:200]})"
            print(f"{job.student}/{job.assignment}/{job.notebook}: {reason}", file=sys.stderr, flush=True)
            result = failed_result(job, outputs.safe_text(reason))  # a zero: no late penalty to take
            result.notes = list(f.notes)
            terms.apply(result)
            try:
                write_result(root, db_url, job, result, terms, None)
            except Exception as again:  # noqa: BLE001 - the gradebook itself fails: said, and the store still keeps it
                print(f"  and the zero could not be written to the gradebook: {again!r}", file=sys.stderr)
        try:
            with timing.unit("write", student=job.student, notebook=job.notebook), timing.phase("result file"):
                store.put(Entry(job.key, result, inputs, terms.as_dict(), runner))
        except Exception as exc:  # noqa: BLE001 - the store is a cache of the gradebook: said, grading goes on
            print(f"{job.student}/{job.assignment}/{job.notebook}: result not kept ({exc!r})", file=sys.stderr)
        policy = [f"new policy ({', '.join(terms.changes(prior.terms))})"] if prior and terms.changes(prior.terms) else []
        changes.append(Change(job.student, job.assignment, job.notebook,
                              prior.result if prior else None, result, (why or []) + policy))
        return result

    results: dict[tuple[str, str, str], NotebookResult] = {}
    for job, f, prior, inputs in kept:
        terms = terms_of(job)
        if terms.as_dict() == prior.terms and prior.result.notes == _with_terms(prior.result, terms, f).notes:
            results[(job.student, job.assignment, job.notebook)] = prior.result
            continue
        register([job.assignment])  # lateness is not a kernel's business: re-recorded without running anything
        results[(job.student, job.assignment, job.notebook)] = record(
            job, f, prior, inputs, terms, NotebookResult.from_dict(prior.result.to_dict()), None, prior.runner, None)
        recorded.append(job)
    unchanged = len(kept) - len(recorded)
    if unchanged:
        print(f"{unchanged} notebook(s) already graded with the same submission, tests, grader, seed and policy: kept")
    if recorded:
        print(f"{len(recorded)} notebook(s) re-recorded for a change of policy or submission time, without running them")
    needed = [(data[k], seeds[k[0]]) for k in sorted({j.data.key for j, *_ in jobs})]
    start = time.monotonic()
    workers = default_workers() if not args.workers else max(1, int(args.workers))
    progress = Progress(len(jobs))
    by_job = {id(j): (f, prior, inputs) for j, f, prior, inputs in jobs}

    def on_output(job: Job, output: JobOutput) -> None:
        f, prior, inputs = by_job[id(job)]
        why = _run_reasons(prior, inputs, args)
        result = record(job, f, prior, inputs, terms_of(job), output.result, output.executed, output.runner, why)
        results[(job.student, job.assignment, job.notebook)] = result
        progress.done(job, result)

    try:
        with make_backend(args, root, workers if len(jobs) > 1 else 1) as backend:
            # the gradebook learns the assignments (nbgrader's generate_assignment) while the references run
            registering = threading.Thread(target=register, args=([] if trial else sorted({j.assignment for j, *_ in jobs}),))
            registering.start()
            refs = backend.references(needed, sandbox_on) if jobs else {}
            registering.join()
            check_references(refs)
            for job, *_ in jobs:
                job.refs = refs[job.data.key]
            progress.start()
            backend.run([j for j, *_ in jobs], on_output)
            workers = backend.workers
    except ReferenceFailed as exc:
        print(str(exc), file=sys.stderr)
        return 2
    progress.close()
    print(table(results.values()))
    print(f"graded {len(jobs)} notebook(s) in {time.monotonic() - start:.1f} s with {workers} worker(s)")
    print(trial_list(changes, args.seed) if trial else change_list(changes, taken_back))
    print(time_sources(results.values()))
    for warning in (untrusted_times(results.values()),
                    other_variants(results.values(), default_variant),
                    earlier_releases(results.values())):
        if warning:
            print(warning)
    for f, when in held.values():
        print(f"held, not graded: {f.student} {f.assignment.name}/{f.notebook}: nbgrader's timestamp.txt says "
              f"{when!r}, which is not a time (nbgrader's Autograde refuses it too); correct "
              f"{f.path.parent / 'timestamp.txt'}, or give the time: autograder grade {f.assignment.name} "
              f"--student {f.student} --submitted-at TIME", file=sys.stderr)
    if trial:
        print(f"nothing was kept: this run with --seed {args.seed} recorded no grade, autograded notebook or "
              "result, and the recorded grades stand (a plain grade keeps the term's seed)", flush=True)
    return 0


def unreadable_nbgrader_time(root: Path, f: Found) -> str | None:
    """The text of nbgrader's ``timestamp.txt`` when it is the time this notebook would be judged by and
    does not read as a time (else None): nbgrader's own Autograde stops at it, before any step the course
    configures, so ``grade`` holds it too (no penalty is guessed) until the file is corrected or the
    instructor gives the time."""
    when, source = times.submission_time(root, f.assignment.name, f.student, f.path.parent)
    return when if source == times.NBGRADER and late.parse_time(when) is None else None


def _with_terms(result: NotebookResult, terms: "late.Terms", f: Found) -> NotebookResult:
    """A copy of a stored result with the given lateness and the planner's notes applied (nothing recorded)."""
    copy = NotebookResult.from_dict(result.to_dict())
    copy.notes = list(f.notes)
    terms.apply(copy)
    return copy


def _run_reasons(prior: Entry | None, inputs: dict, args) -> list[str]:
    """Why a notebook ran again, in words: which of its run inputs changed since the recorded result."""
    if prior is None:
        return []
    why = list(dict.fromkeys(INPUT_WORDS[k] for k in INPUT_WORDS if prior.inputs.get(k) != inputs.get(k)))
    if not prior.inputs:
        why = ["graded before the grader kept its inputs"]
    if not why and prior.result.grader_error and getattr(args, "retry_errors", False):
        why = ["grader error retried"]
    if not why and args.force:
        why = ["regraded (--force)"]
    if not why:
        why = ["its record in the gradebook or autograded/ was missing"]
    return why


@dataclass
class Change:
    """What one ``grade`` run did to one recorded result."""

    student: str
    assignment: str
    notebook: str
    before: NotebookResult | None
    after: NotebookResult
    why: list[str]


def _score(r: NotebookResult) -> str:
    return f"{r.final_score:g}/{r.max_score:g}" + (f" (late: -{r.late_penalty:g})" if r.late_penalty else "")


def ungraded_away(root: Path, subs: Path, assignments: list[str]) -> list[str]:
    """``STUDENT (ASSIGNMENT)`` for each recorded result of ``assignments`` whose submission folder is gone."""
    store = ResultStore(root)
    return sorted({f"{student} ({a})" for a in assignments for _, student, _ in store.recorded(a)
                   if not (subs / student / a).is_dir()})


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
               "variant_seeds.json from a backup if it was replaced, and hand out one copy per student (README: "
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

    def __init__(self, total: int) -> None:
        self.total, self.count, self.stopped, self.bar = total, 0, 0, None

    def start(self) -> None:
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
