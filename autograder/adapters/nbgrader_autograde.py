"""The step nbgrader's own ``autograde`` runs in place of executing a submission unsandboxed.

``nbgrader autograde`` and the formgrader's *Autograde* button run nbgrader's ``Autograde``
converter: it copies the submission, restores the locked cells, runs the ``Execute``
preprocessor (the learner's code in a plain kernel, hidden tests in it), then scores the
outputs (``SaveAutoGrades``) and applies the late policy.  ``nbgrader_config.py`` puts
:class:`SandboxedGrade` where ``Execute`` was: it grades the submission with
``autograder grade`` (sandbox, hidden tests judged outside the learner's kernel, the reference
solution run beside it) and hands nbgrader the autograded notebook that grading wrote.  Its
test cells carry an error exactly where an exercise failed, so nbgrader's own scoring of that
notebook gives the scores ``autograder grade`` recorded, and the rest of nbgrader's pipeline
runs unchanged.  Where grading leaves no graded notebook (a notebook refused or unreadable, a
crash, a grader error), nbgrader gets the submission with every test cell failed: a zero,
never the unexecuted file that nbgrader would score as passing.

``--SandboxedGrade.trusted_input=True`` runs nbgrader's own ``Execute`` instead: no sandbox,
hidden tests inside the learner's kernel.  Only for submissions you wrote yourself.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat
from nbgrader.preprocessors import AssignLatePenalties, Execute, NbGraderPreprocessor
from traitlets import Bool

from autograder.values import course


def course_root(step) -> Path:
    """The course nbgrader's ``Autograde`` converter (the step's parent's parent) works on."""
    coursedir = getattr(getattr(step.parent, "parent", None), "coursedir", None)
    return Path(coursedir.root) if coursedir is not None else course.find_root()


class SandboxedGrade(NbGraderPreprocessor):
    """Grade the notebook with ``autograder grade`` and return the notebook it wrote."""

    trusted_input = Bool(False, help="Run nbgrader's own Execute instead: learner code unsandboxed, "
                                     "hidden tests in its kernel (trusted submissions only).").tag(config=True)

    def preprocess(self, nb, resources):
        if self.trusted_input:
            return Execute(parent=self.parent).preprocess(nb, resources)
        info = resources["nbgrader"]
        assignment, student, notebook = info["assignment"], info["student"], info["notebook"]
        root = course_root(self)
        # nbgrader has just overwritten the autograded notebook with the unexecuted submission:
        # regrade, so that the notebook read back below is the one grading wrote.  The id goes as
        # --student=ID and the assignment after --, so an id that looks like an option stays an id.
        cmd = [sys.executable, "-m", "autograder", "grade", f"--student={student}", "--force", "--", assignment]
        out = subprocess.run(cmd, cwd=root, capture_output=True, text=True)
        self.log.info("graded in the sandbox:\n%s", out.stdout[-3000:])
        graded = course.folder(root, "autograded", student, assignment) / f"{notebook}.ipynb"
        if out.returncode != 0 or not graded.is_file():
            # refused, unreadable, crashed, timed out, a grader error: never the unexecuted file
            why = (f"`autograder grade` failed (exit {out.returncode}): {out.stderr.strip()[-300:]}"
                   if out.returncode != 0 else "grading left no graded notebook (see the grade notes)")
            self.log.warning("%s/%s/%s: %s", student, assignment, notebook, why)
            return failing(nb, why), resources
        return nbformat.read(graded, as_version=4), resources


def failing(nb, why: str):
    """``nb`` with every test cell failed: what nbgrader scores as zero for a submission with no graded notebook."""
    for cell in nb.cells:
        if course.is_tests(cell):
            cell.outputs = [nbformat.v4.new_output("error", ename="NotGraded", evalue=why,
                                                   traceback=[f"NotGraded: {why}"])]
    return nb


class RecordedLatePenalty(AssignLatePenalties):
    """nbgrader's late-penalty step, giving the penalty ``autograder grade`` recorded for this notebook.

    Both paths then agree on lateness for every submission time, whatever its source (a collector's
    record, nbgrader's timestamp, one that does not read, a file's time that decides nothing):
    :class:`autograder.adapters.late.Terms` decides it once.  Where nothing was recorded (``trusted_input``,
    nbgrader's own execution), nbgrader's own step runs."""

    def preprocess(self, nb, resources):
        from nbgrader.api import Gradebook

        from autograder.grading.store import ResultStore

        info = resources["nbgrader"]
        result = ResultStore(course_root(self)).get(info["assignment"], info["student"], info["notebook"])
        if result is None or SandboxedGrade(parent=self.parent).trusted_input:
            return super().preprocess(nb, resources)
        with Gradebook(info["db_url"]) as gb:
            notebook = gb.find_submission_notebook(info["notebook"], info["assignment"], info["student"])
            notebook.late_submission_penalty = min(result.late_penalty, notebook.score) or None
            gb.db.commit()
        return nb, resources


def autograde_steps() -> list:
    """nbgrader's autograde steps, with the sandboxed grade where nbgrader executes the notebook and the
    recorded penalty where nbgrader computes its own."""
    from nbgrader.converters import Autograde

    swap = {Execute: SandboxedGrade, AssignLatePenalties: RecordedLatePenalty}
    default = Autograde.class_traits()["autograde_preprocessors"].default()
    return [swap.get(step, step) for step in default]

