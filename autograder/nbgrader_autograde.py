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
from nbgrader.preprocessors import Execute, NbGraderPreprocessor
from traitlets import Bool

from . import course


class SandboxedGrade(NbGraderPreprocessor):
    """Grade the notebook with ``autograder grade`` and return the notebook it wrote."""

    trusted_input = Bool(False, help="Run nbgrader's own Execute instead: learner code unsandboxed, "
                                     "hidden tests in its kernel (trusted submissions only).").tag(config=True)

    def preprocess(self, nb, resources):
        if self.trusted_input:
            return Execute(parent=self.parent).preprocess(nb, resources)
        info = resources["nbgrader"]
        assignment, student, notebook = info["assignment"], info["student"], info["notebook"]
        converter = getattr(self.parent, "parent", None)  # nbgrader's Autograde, which owns the course directory
        coursedir = getattr(converter, "coursedir", None)
        root = Path(coursedir.root) if coursedir is not None else course.find_root()
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


def autograde_steps() -> list:
    """nbgrader's autograde steps, with the sandboxed grade where nbgrader executes the notebook."""
    from nbgrader.converters import Autograde

    default = Autograde.class_traits()["autograde_preprocessors"].default()
    return [SandboxedGrade if step is Execute else step for step in default]

