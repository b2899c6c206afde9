"""Step 1: read the submitted file once (:func:`read_submission`), without trusting it: its digest goes
into the result, its notebook on to the next step.  A file that does not read ends the run: every
exercise failed, with the reason.  A notebook handed over instead of a file (nbgrader's *Autograde*, which
has read the submission already: :mod:`autograder.adapters.autograde`) is taken by the same rule, from its
bytes (:func:`read_handed`)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbgrader.preprocessors import NbGraderPreprocessor

from autograder.values.digest import sha
from autograder.values.records import ExerciseResult, Status

MAX_NOTEBOOK_BYTES = 20 * 1024 * 1024


@dataclass
class Submission:
    """A submitted notebook, read once: its digest (of the bytes on disk, ``sha("")`` when it is missing) and
    the notebook parsed without trust, or the problem that kept it from being read."""

    sha: str
    nb: nbformat.NotebookNode | None
    problem: str | None


def read_submission(path: Path, handed: nbformat.NotebookNode | None = None) -> Submission:
    """Read a submitted notebook once: hash its bytes and parse them without trusting them.  ``handed``: the
    notebook another reader (nbgrader's *Autograde*) parsed from that file, taken from its own bytes
    (:func:`read_handed`); the file must still be one a grade reads (a regular file, not a link)."""
    if path.is_symlink() or not path.is_file():
        return Submission(sha(b""), None, "the submitted notebook is missing")
    if handed is not None:
        return read_handed(handed)
    try:
        if path.stat().st_size > MAX_NOTEBOOK_BYTES:
            digest = hashlib.sha256()
            with open(path, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    digest.update(block)
            return Submission(digest.hexdigest(), None,
                              f"the submitted notebook is larger than {MAX_NOTEBOOK_BYTES >> 20} MiB")
        raw = path.read_bytes()
    except OSError as exc:
        return Submission(sha(b""), None, f"the submitted notebook could not be read ({type(exc).__name__})")
    nb, problem = parse_submission(raw)
    return Submission(sha(raw), nb, problem)


def read_handed(nb: nbformat.NotebookNode) -> Submission:
    """A notebook another reader parsed (nbgrader's), taken as the file it would be: its bytes, within the same
    size limit, parsed again without trust."""
    try:
        raw = nbformat.writes(nb).encode("utf-8", errors="replace")
    except Exception as exc:  # noqa: BLE001 - whatever a hostile notebook's content makes the writer raise
        return Submission(sha(b""), None, f"the submitted notebook could not be read ({type(exc).__name__})")
    if len(raw) > MAX_NOTEBOOK_BYTES:
        return Submission(sha(raw), None, f"the submitted notebook is larger than {MAX_NOTEBOOK_BYTES >> 20} MiB")
    parsed, problem = parse_submission(raw)
    return Submission(sha(raw), parsed, problem)


def parse_submission(raw: bytes) -> tuple[nbformat.NotebookNode | None, str | None]:
    """Parse a submitted notebook's bytes without trusting them; return (notebook, problem)."""
    try:
        nb = nbformat.reads(raw.decode("utf-8", errors="replace"), as_version=4)
        if not isinstance(nb.get("cells"), list):
            return None, "the submitted notebook has no cell list"
        for cell in nb.cells:
            if not isinstance(cell, dict) or cell.get("cell_type") not in ("code", "markdown", "raw"):
                return None, "the submitted notebook has a malformed cell"
            if not isinstance(cell.get("source", ""), str):
                cell["source"] = "".join(map(str, cell.get("source", [])))
            if not isinstance(cell.get("metadata"), dict):
                cell["metadata"] = nbformat.NotebookNode()
            nbg = cell["metadata"].get("nbgrader")
            if nbg is not None and (not isinstance(nbg, dict) or not isinstance(nbg.get("grade_id", ""), str)):
                cell["metadata"]["nbgrader"] = {"malformed": True}  # run as a plain cell, reported
        return nb, None
    except Exception as exc:  # malformed JSON, wrong nbformat, bad encoding
        return None, f"the submitted notebook could not be read ({type(exc).__name__}: {str(exc)[:200]})"


class ReadSubmission(NbGraderPreprocessor):
    def preprocess(self, nb, resources):
        run = resources["grading"]
        run.submitted = read_submission(run.student_path, run.handed)
        run.result.submission_sha = run.submitted.sha
        if run.submitted.problem:
            why = run.submitted.problem
            run.result.error = why
            run.result.exercises = [ExerciseResult(e.id, e.title, e.points, 0.0, Status.FAILED, why)
                                    for e in run.data.exercises]
            run.done = True
            return None, resources
        return run.submitted.nb, resources
