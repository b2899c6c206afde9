"""The one writer of a ``grade`` run: each result, with its lateness, into nbgrader's gradebook and the
result store, and what each recording changed.

:class:`Recorder` is what ``grade`` (and nbgrader's *Autograde*, through it) hands every result to, from
any backend, in the command's own process.  It reads the submission's time and the late policy in force
where it records (:meth:`Recorder.terms_of`), so a change of either is recorded again without running a
kernel (:meth:`Recorder.keep`); whatever goes wrong while recording a result becomes that result, a zero
with the reason; a trial run (``--seed N``) writes nothing and only keeps what it would have changed.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat

from autograder.adapters import late, times
from autograder.adapters.gradebook import ensure_in_gradebook, write_result
from autograder.adapters.submitted import Found
from autograder.grading.jobs import INPUT_WORDS, Job, failed_result
from autograder.grading.store import Entry, ResultStore
from autograder.values import outputs, timing
from autograder.values.records import NotebookResult


@dataclass
class Change:
    """What one ``grade`` run did to one recorded result."""

    student: str
    assignment: str
    notebook: str
    before: NotebookResult | None
    after: NotebookResult
    why: list[str]


class Recorder:
    """Records results for one ``grade`` run (``trial``: a run with ``--seed N``, which keeps nothing;
    ``keep_written``: keep each autograded notebook written, in :attr:`written`, for nbgrader's *Autograde*)."""

    def __init__(self, root: Path, db_url: str, trial: bool, keep_written: bool = False) -> None:
        self.root, self.db_url, self.trial, self.keep_written = root, db_url, trial, keep_written
        self.store = ResultStore(root)
        self.changes: list[Change] = []
        self.written: dict[tuple[str, str, str], nbformat.NotebookNode] = {}
        self._registered: set[str] = set()

    def register(self, assignments) -> None:
        """nbgrader's gradebook learns these assignments (its ``generate_assignment``), once each."""
        todo = sorted(set(assignments) - self._registered)
        if todo:
            with timing.unit("registration", assignments=todo):
                ensure_in_gradebook(self.root, todo, self.db_url)
            self._registered.update(todo)

    def terms_of(self, job: Job) -> late.Terms:
        """What decides this notebook's lateness now: the policy in force and the submission's time."""
        folder = Path(job.path).parent
        return late.Terms.of(self.root, job.assignment, job.student,
                             *times.submission_time(self.root, job.assignment, job.student, folder))

    def keep(self, job: Job, f: Found, prior: Entry, inputs: dict) -> NotebookResult | None:
        """A stored result whose run inputs are unchanged: recorded again, without a kernel, where its lateness
        or the planner's notes changed (returned); None where it stands as it is."""
        terms = self.terms_of(job)
        if terms.as_dict() == prior.terms and prior.result.notes == with_terms(prior.result, terms, f).notes:
            return None
        self.register([job.assignment])  # lateness is not a kernel's business
        return self.record(job, f, prior, inputs, NotebookResult.from_dict(prior.result.to_dict()), None,
                           prior.runner, None, terms)

    def record(self, job: Job, f: Found, prior: Entry | None, inputs: dict, result: NotebookResult,
               executed: nbformat.NotebookNode | None, runner: dict, why: list[str] | None,
               terms: late.Terms | None = None) -> NotebookResult:
        """Record one result with its lateness; whatever goes wrong while recording it becomes its recorded
        result.  ``why`` None: a stored result recorded again for a change of policy (nothing ran); else why
        it ran again.  ``terms``: the lateness already read for it (else read here, once)."""
        terms = terms or self.terms_of(job)
        result.notes = list(f.notes)  # what the planner noticed; the lateness adds its own (late.Terms.apply)
        result.file = f.path.name if f.path.name != f"{job.notebook}.ipynb" else ""
        terms.apply(result)
        if self.trial:  # shown beside the recorded result, written nowhere
            self.changes.append(Change(job.student, job.assignment, job.notebook, prior.result if prior else None,
                                       result, why or []))
            return result
        try:
            with timing.unit("write", student=job.student, notebook=job.notebook), timing.phase("gradebook write"):
                written = write_result(self.root, self.db_url, job, result, terms, executed, rerecord=why is None)
            if written is not None and self.keep_written:
                self.written[(job.student, job.assignment, job.notebook)] = written
        except Exception as exc:  # noqa: BLE001 - e.g. an output that would not serialise
            reason = f"grader error: the result could not be recorded ({type(exc).__name__}: {str(exc)[:200]})"
            print(f"{job.student}/{job.assignment}/{job.notebook}: {reason}", file=sys.stderr, flush=True)
            result = failed_result(job, outputs.safe_text(reason))  # a zero: no late penalty to take
            result.notes = list(f.notes)
            terms.apply(result)
            try:
                write_result(self.root, self.db_url, job, result, terms, None)
            except Exception as again:  # noqa: BLE001 - the gradebook itself fails: said, and the store still keeps it
                print(f"  and the zero could not be written to the gradebook: {again!r}", file=sys.stderr)
        try:
            with timing.unit("write", student=job.student, notebook=job.notebook), timing.phase("result file"):
                self.store.put(Entry(job.key, result, inputs, terms.as_dict(), runner))
        except Exception as exc:  # noqa: BLE001 - the store is a cache of the gradebook: said, grading goes on
            print(f"{job.student}/{job.assignment}/{job.notebook}: result not kept ({exc!r})", file=sys.stderr)
        policy = [f"new policy ({', '.join(terms.changes(prior.terms))})"] if prior and terms.changes(prior.terms) else []
        self.changes.append(Change(job.student, job.assignment, job.notebook,
                                   prior.result if prior else None, result, (why or []) + policy))
        return result


def with_terms(result: NotebookResult, terms: late.Terms, f: Found) -> NotebookResult:
    """A copy of a stored result with the given lateness and the planner's notes applied (nothing recorded)."""
    copy = NotebookResult.from_dict(result.to_dict())
    copy.notes = list(f.notes)
    terms.apply(copy)
    return copy


def run_reasons(prior: Entry | None, inputs: dict, retry_errors: bool, force: bool) -> list[str]:
    """Why a notebook ran again, in words: which of its run inputs changed since the recorded result."""
    if prior is None:
        return []
    why = list(dict.fromkeys(INPUT_WORDS[k] for k in INPUT_WORDS if prior.inputs.get(k) != inputs.get(k)))
    if not prior.inputs:
        why = ["graded before the grader kept its inputs"]
    if not why and prior.result.grader_error and retry_errors:
        why = ["grader error retried"]
    if not why and force:
        why = ["regraded (--force)"]
    if not why:
        why = ["its record in the gradebook or autograded/ was missing"]
    return why
