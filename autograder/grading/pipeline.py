"""One submitted notebook, from its file to its result and executed notebook.

The grade is the list of steps of :mod:`autograder.grading.steps`, nbgrader preprocessors each with one
purpose: read the file once, restore the instructor's cells (tampering logged), arm the hidden tests, plan
the short run, execute in the sandbox (short, then full where the short run does not count), judge the
observations against the reference's, and limit what leaves (it always serialises and carries no active
content, :mod:`autograder.values.outputs`).  Hidden tests emit observations in the kernel, never verdicts.
"""

from __future__ import annotations

from pathlib import Path

import nbformat

from autograder.grading.coursedata import NotebookData
from autograder.grading.execute import Limits
from autograder.grading.steps import GradingRun, run_steps
from autograder.values.records import NotebookResult, Reference


def grade_notebook(student_path: Path, data: NotebookData, *, student_id: str, seed: int,
                   refs: Reference | None, limits: Limits | None = None, sandbox=None,
                   compile_cache: Path | None = None, full: bool = False,
                   steps: list | None = None) -> tuple[NotebookResult, nbformat.NotebookNode | None]:
    """Grade one submitted notebook; return its result and the executed notebook.

    ``refs`` None runs the visible tests only.  Unless ``full``, and where the reference proved it
    safe (:mod:`autograder.shortrun`), the cells no graded cell depends on are skipped; a short run
    that stopped early, or in which an exercise fails or errors where the learner's code may read what
    it does not name, is graded again in full, and the full run counts.
    Sandboxed, a run gets a private copy of ``compile_cache``, the compiled kernels the reference
    run left.  ``steps``: the steps to run (default :func:`autograder.grading.steps.default_steps`)."""
    run = GradingRun(data, Path(student_path), student_id, seed, refs, limits or Limits(), sandbox,
                     compile_cache, full)
    nb = run_steps(run, steps)
    return run.result, nb
