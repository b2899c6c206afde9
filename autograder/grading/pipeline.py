"""One submitted notebook, from its file to its result and executed notebook.

1. :func:`autograder.grading.submission.merge` rebuilds the notebook to run from the instructor's copy;
2. :func:`autograder.grading.execute.execute` runs it in a fresh (sandboxed) kernel in ``record`` mode:
   hidden tests emit observations, never verdicts;
3. :func:`autograder.grading.scoring.score` judges each exercise against the reference's observations.

What leaves here is stored and shown: the executed notebook is cleaned so that it always
serialises and carries no active content (:mod:`autograder.values.outputs`).
"""

from __future__ import annotations

from pathlib import Path

import nbformat

from autograder import shortrun
from autograder.grading.coursedata import NotebookData
from autograder.grading.execute import Limits, execute, work_folder
from autograder.grading.references import compile_cache_env, seed_compile_cache
from autograder.grading.scoring import collect, score
from autograder.grading.submission import arm_hidden_tests, copy_support_files, merge, read_submission
from autograder.values import course, outputs, support, timing
from autograder.values.records import ExerciseResult, NotebookResult, Reference


def grade_notebook(student_path: Path, data: NotebookData, *, student_id: str, seed: int,
                   refs: Reference | None, limits: Limits | None = None, sandbox=None,
                   compile_cache: Path | None = None, full: bool = False) -> tuple[NotebookResult, nbformat.NotebookNode | None]:
    """Grade one submitted notebook; return its result and the executed notebook.

    ``refs`` None runs the visible tests only.  Unless ``full``, and where the reference proved it
    safe (:mod:`autograder.shortrun`), the cells no graded cell depends on are skipped; a short run
    in which any exercise fails or errors is graded again in full, and the full run counts.
    Sandboxed, a run gets a private copy of ``compile_cache``, the compiled kernels the reference
    run left."""
    limits = limits or Limits()
    hidden = refs is not None
    result = NotebookResult(student_id, data.assignment.name, data.name, seed=seed)
    submitted = read_submission(student_path)
    result.submission_sha = submitted.sha
    student, problem = submitted.nb, submitted.problem
    if problem:
        result.error = problem
        result.exercises = [ExerciseResult(e.id, e.title, e.points, 0.0, "failed", problem) for e in data.exercises]
        return result, None
    with timing.phase("grader: merge with the instructor's copy"):
        merged, result.tampering = merge(student, data.release, data.solution, hidden=hidden)
    released_ids = {course.grade_id(r) for r in data.release.cells if course.grade_id(r)}
    if not any(course.grade_id(c) in released_ids for c in student.cells):
        result.tampering.append(f"the notebook does not look like {data.assignment.name}/{data.name} (no matching cells)")
    if hidden:
        arm_hidden_tests(merged, seed, data.markers)

    def run(nb):
        with work_folder(sandbox, "grade-") as work:
            with timing.phase("grader: copy support files"):
                copy_support_files(student_path.parent, work)
                support.copy_listed(data.support_dir, data.support_files, work)  # what the release ships
            env = {"AUTOGRADER_MODE": "record"}
            if sandbox is not None:
                seed_compile_cache(work, compile_cache)
                env.update(compile_cache_env(work))
            with timing.phase("execute (kernel run, total)"):
                res = execute(nb, work, env=env, limits=limits, sandbox=sandbox)
        with timing.phase("grader: judge observations"):
            got = collect(res.nb, data.exercises)
            return res, score(data, got, refs, student, res.error)

    short, skipped = (None, 0) if full or refs is None else shortrun.prepare(merged, data.release, refs.short)
    if short is not None:
        res, exercises = run(short)
        short_seconds = res.seconds
        if not res.error and not res.abandoned and all(e.status in ("passed", "not attempted") for e in exercises):
            result.run = f"short: {skipped} of {sum(c.cell_type == 'code' for c in merged.cells)} code cells skipped"
        else:
            why = ("the random-number generators did not reach a skipped stretch as in the reference"
                   if res.abandoned else "an exercise failed or errored in the short run")
            res, exercises = run(merged)
            res.seconds += short_seconds
            result.run = f"full, after a short run ({why})"
    else:
        res, exercises = run(merged)
        result.run = "full"
    result.error, result.seconds, result.exercises = res.error, res.seconds, exercises
    return result, outputs.clean_notebook(res.nb, limits.max_notebook_output_kb * 1024)
