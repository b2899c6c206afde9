"""Local mode only: rebuild the reference solution inside the current process.

Used when a notebook with hidden tests runs outside ``autograder`` (stock
``nbgrader autograde``, or an instructor running ``solutions/``).  The graded
path (``autograder grade``) never uses this: there the reference runs in its own
process and only its observations reach the judge.
"""

from __future__ import annotations

import contextlib
import os
import tempfile

from autograder.values import course


def course_root():
    """The course this kernel grades for: found from where the kernel started (the notebook may have changed
    its working folder since), from the notebook JupyterLab opened, or from the working folder."""
    import sys

    started = getattr(sys.modules.get("autograder.probe.kernelinit"), "START_DIR", None)
    session = os.environ.get("JPY_SESSION_NAME")
    for where in (started, os.path.dirname(session) if session else None, os.getcwd()):
        if where:
            try:
                return course.find_root(where)
            except FileNotFoundError:  # not inside a course from there: the next place to look
                continue
    return course.find_root()  # says where it looked


@contextlib.contextmanager
def reference_namespace(exercise: str, student_globals: dict):
    """A copy of the learner's globals with every solution cell up to ``exercise`` re-run from ``solutions/``.

    Runs in a scratch working directory so that files the solution writes do not
    replace the learner's.
    """
    from IPython.core.inputtransformer2 import TransformerManager

    assignment, name = course.find_exercise(exercise, course_root())
    nb = course.read(assignment.solution(name))
    ns = dict(student_globals)
    transform = TransformerManager().transform_cell
    old = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="reference-") as tmp:
        os.chdir(tmp)
        try:
            for cell in nb.cells:
                if cell.cell_type == "code" and course.is_solution(cell):
                    exec(compile(transform(cell.source), f"<reference {course.grade_id(cell)}>", "exec"), ns)
                if course.exercise_of(cell) == exercise and course.is_tests(cell):
                    break
            yield ns
        finally:
            os.chdir(old)
