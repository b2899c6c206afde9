"""nbgrader's own ``autograde`` (and the formgrader's *Autograde* button), grading through the library's grade.

nbgrader's ``Autograde`` converter reads a submission, passes it through its sanitize steps, then its
autograde steps: stock nbgrader restores the locked cells, executes the learner's code in a plain kernel
with the hidden tests in it, scores the error outputs (``SaveAutoGrades``) and computes the late penalty
(``AssignLatePenalties``).  ``nbgrader_config.py`` sets the sanitize steps to
:func:`autograder.adapters.hiddentests.sanitize_steps` (the notebook handed on as nbgrader read it: one rule
restores the instructor's cells, the grade's) and the autograde steps to :func:`autograde_steps`:
:class:`GradeInSandbox`, then nbgrader's ``CheckCellMetadata``.

:class:`GradeInSandbox` grades the notebook nbgrader hands it with :func:`autograder.adapters.batch.grade`, in
this process (:meth:`~autograder.adapters.batch.GradeRequest.one_notebook`): the same plan, reference, grading
steps (:mod:`autograder.grading.steps`, whose first step reads the handed notebook by the rule it reads a file
by) and the same one writer of scores, comments and late penalty
(:func:`autograder.adapters.gradebook.write_result`, with ``SaveAutoGrades``'s and
``AssignLatePenalties``' semantics and the lateness of nbgrader's gradebook).  It returns the autograded
notebook that writer made, and nbgrader writes it: nothing scores its outputs again, so a verdict is
recorded once, as a score.  A notebook ``grade`` refuses or cannot
read is recorded as a zero by that writer, and nbgrader gets the submission with each test cell
showing why; a reference that cannot run stops the notebook's autograde with that reason, as it stops
``grade``.

``--GradeInSandbox.trusted_input=True`` runs nbgrader's own autograde steps instead: no sandbox, hidden
tests inside the learner's kernel, nbgrader's scoring of the outputs.  Only for submissions you wrote
yourself.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import nbformat
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Bool

from autograder.values import course, private
from autograder.values.errors import UserError


def course_root(step) -> Path:
    """The course nbgrader's ``Autograde`` converter (the step's parent's parent) works on."""
    coursedir = getattr(getattr(step.parent, "parent", None), "coursedir", None)
    return Path(coursedir.root) if coursedir is not None else course.find_root()


class GradeInSandbox(NbGraderPreprocessor):
    """Grade the notebook as ``grade`` does, in this process, and return the autograded notebook it wrote."""

    trusted_input = Bool(False, help="Run nbgrader's own autograde steps instead: learner code unsandboxed, "
                                     "hidden tests in its kernel (trusted submissions only).").tag(config=True)

    def preprocess(self, nb, resources):
        if self.trusted_input:
            return self._stock(nb, resources)
        from autograder.adapters.batch import GradeRequest, ReferenceFailed, grade

        info = resources["nbgrader"]
        assignment, student, notebook = info["assignment"], info["student"], info["notebook"]
        root = course_root(self)
        for line in private.keep_closed(root):  # a class's course: what another command left open is closed
            self.log.warning(line)
        said = io.StringIO()
        try:
            with contextlib.redirect_stdout(said), contextlib.redirect_stderr(said):
                outcome = grade(GradeRequest.one_notebook(root, assignment, student, notebook, nb), print)
        except (UserError, ReferenceFailed) as exc:  # a reference that cannot run: nothing is recorded, as with `grade`
            raise RuntimeError(f"{student}/{assignment}/{notebook} was not graded: {str(exc)[-600:]}") from None
        self.log.info("graded in the sandbox:\n%s", said.getvalue()[-3000:])
        key = (student, assignment, notebook)
        graded = outcome.written.get(key)
        if graded is None:  # refused or unreadable: the writer recorded a zero and says why
            result = outcome.results.get(key)
            why = result.error if result is not None and result.error else "grading left no graded notebook"
            return shown_as_not_graded(nb, why), resources
        return graded, resources

    def _stock(self, nb, resources):
        """nbgrader's default autograde steps before ``CheckCellMetadata``, as nbgrader configures them."""
        from nbgrader.converters import Autograde
        from nbgrader.preprocessors import CheckCellMetadata

        for step in Autograde.class_traits()["autograde_preprocessors"].default():
            if step is not CheckCellMetadata:
                nb, resources = step(parent=self.parent)(nb, resources)  # (a step the config disables is skipped)
        return nb, resources


def shown_as_not_graded(nb, why: str):
    """``nb`` with no output of the learner's and each test cell showing why it was not graded (for the
    instructor's eyes: the zero is in the gradebook, written by the one writer)."""
    for cell in nb.cells:
        if cell.get("cell_type") == "code":  # what the learner's file carried, active content included
            cell.outputs, cell.execution_count = [], None
        if course.is_tests(cell):
            cell.outputs = [nbformat.v4.new_output("error", ename="NotGraded", evalue=why,
                                                   traceback=[f"NotGraded: {why}"])]
    return nb


def autograde_steps() -> list:
    """nbgrader's autograde steps for this course: the sandboxed grade (which records the scores and the
    late penalty), then nbgrader's check of the cells' metadata."""
    from nbgrader.preprocessors import CheckCellMetadata

    return [GradeInSandbox, CheckCellMetadata]
