"""One submitted notebook, from its file to its result and executed notebook.

The grade is the list of steps of :mod:`autograder.grading.steps`, nbgrader preprocessors each with one
purpose: read the file once, restore the instructor's cells (tampering logged), arm the hidden tests, find
the runs (the grade path; with ``--full`` the notebook top to bottom after it), execute them in the sandbox,
judge the observations against the reference's, and limit what leaves (it always serialises and carries no active
content, :mod:`autograder.values.outputs`).  Hidden tests emit observations in the kernel, never verdicts.
"""

from __future__ import annotations

from pathlib import Path

import nbformat

from autograder.grading.coursedata import NotebookData
from autograder.grading.execute import Limits
from autograder.grading.steps import GradingRun, default_steps, run_steps
from autograder.values.records import NotebookResult, Reference


def grade_notebook(student_path: Path, data: NotebookData, *, student_id: str, seed: int,
                   refs: Reference | None, limits: Limits | None = None, sandbox=None,
                   compile_cache: Path | None = None, full: bool = False,
                   steps: list | None = None, handed: nbformat.NotebookNode | None = None) -> tuple[NotebookResult, nbformat.NotebookNode | None]:
    """Grade one submitted notebook; return its result and the executed notebook.

    ``refs`` None runs the visible tests only, every cell.  With the hidden tests, the grade is that of the
    notebook's grade path (:mod:`autograder.gradepath`); ``full`` also runs it top to bottom, and the
    result's ``run`` says where that run's verdicts differ (they never change the grade).
    Sandboxed, a run gets a private copy of ``compile_cache``, the compiled kernels the reference
    run left.  ``steps``: the steps to run (default :func:`autograder.grading.steps.default_steps`).
    ``handed``: the submission as nbgrader's *Autograde* read it, graded in place of the file's bytes."""
    run = GradingRun(data, Path(student_path), student_id, seed, refs, limits or Limits(), sandbox, compile_cache,
                     handed=handed)
    nb = run_steps(run, steps if steps is not None else default_steps(full=full))
    return run.result, nb
