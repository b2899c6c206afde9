"""Step 2: the notebook to run, rebuilt from the instructor's copy (:func:`autograder.grading.submission.merge`):
the learner's answer cells and own cells, every test cell restored, and what was tampered with logged in the
result (not silently fixed); a cell as an earlier release of the course handed it out is no edit
(:mod:`autograder.values.released`).  A notebook with none of the release's cells is noted as not this notebook."""

from __future__ import annotations

from nbgrader.preprocessors import NbGraderPreprocessor

from autograder.grading.submission import merge
from autograder.values import course, timing


class RestoreInstructorCells(NbGraderPreprocessor):
    def preprocess(self, nb, resources):
        run = resources["grading"]
        data = run.data
        with timing.phase("grader: merge with the instructor's copy"):
            merged, run.result.tampering, run.result.earlier_release = merge(
                nb, data.release, data.solution, hidden=run.hidden, released_cells=data.released_cells())
        released_ids = {course.grade_id(r) for r in data.release.cells if course.grade_id(r)}
        if not any(course.grade_id(c) in released_ids for c in nb.cells):
            run.result.tampering.append(
                f"the notebook does not look like {data.assignment.name}/{data.name} (no matching cells)")
        run.merged = merged
        return merged, resources
