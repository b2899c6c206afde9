"""Step 1: read the submitted file once (:func:`autograder.grading.submission.read_submission`): its digest
goes into the result, its notebook on to the next step.  A file that does not read ends the run: every
exercise failed, with the reason."""

from __future__ import annotations

from nbgrader.preprocessors import NbGraderPreprocessor

from autograder.grading.submission import read_submission
from autograder.values.records import ExerciseResult


class ReadSubmission(NbGraderPreprocessor):
    def preprocess(self, nb, resources):
        run = resources["grading"]
        run.submitted = read_submission(run.student_path)
        run.result.submission_sha = run.submitted.sha
        if run.submitted.problem:
            why = run.submitted.problem
            run.result.error = why
            run.result.exercises = [ExerciseResult(e.id, e.title, e.points, 0.0, "failed", why)
                                    for e in run.data.exercises]
            run.done = True
            return None, resources
        return run.submitted.nb, resources
