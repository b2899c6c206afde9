"""Step 1: read the submitted file once (:func:`read_submission`), without trusting it: its digest goes
into the result, its notebook on to the next step.  A file that does not read ends the run: every
exercise failed, with the reason."""

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


def read_submission(path: Path) -> Submission:
    """Read a submitted notebook once: hash its bytes and parse them without trusting them."""
    if path.is_symlink() or not path.is_file():
        return Submission(sha(b""), None, "the submitted notebook is missing")
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
        run.submitted = read_submission(run.student_path)
        run.result.submission_sha = run.submitted.sha
        if run.submitted.problem:
            why = run.submitted.problem
            run.result.error = why
            run.result.exercises = [ExerciseResult(e.id, e.title, e.points, 0.0, Status.FAILED, why)
                                    for e in run.data.exercises]
            run.done = True
            return None, resources
        return run.submitted.nb, resources
