"""The single writer of nbgrader's gradebook and of ``autograded/``.

Workers never touch ``gradebook.db``: the ``grade`` command hands every finished job to this
module, in one process, so the sqlite gradebook never sees two writers; nbgrader's own
``autograde`` runs that command (:mod:`autograder.adapters.autograde`) in place of its
``SaveAutoGrades`` and ``AssignLatePenalties``, whose semantics :func:`write_result` keeps: a
test cell's score is the judge's, a graded cell with no automatic score needs a manual grade,
an answer left as released gets nbgrader's "No response." comment, and the late penalty
(never more than the score) replaces whatever an earlier run recorded.

A verdict is recorded once, as a score.  The autograded notebook is for people: outputs kept
(cleaned), observation payloads dropped, and a failed test cell shows why, as an error the way
nbgrader shows a failed test; nothing reads a score back from it.
"""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path

import nbformat

from autograder.adapters import generate, late, times
from autograder.values import course, wire
from autograder.values.files import write_atomic
from autograder.values.records import NotebookResult, Status

HIDDEN_FAILURE = "HiddenTestFailure"


def autograded_notebook(executed: nbformat.NotebookNode, result: NotebookResult) -> nbformat.NotebookNode:
    """The notebook instructors see: outputs kept, observation payloads dropped, a failed test cell showing
    why (an error output, as nbgrader shows one; the score itself is only in the gradebook)."""
    by_ex = {e.id: e for e in result.exercises}
    for cell in executed.cells:
        if cell.cell_type != "code":
            continue
        cell.outputs = [o for o in cell.outputs if wire.MIME not in (o.get("data") or {})]
        ex = course.exercise_of(cell)
        if ex and course.is_tests(cell) and ex in by_ex:
            r = by_ex[ex]
            has_error = any(o.get("output_type") == "error" for o in cell.outputs)
            if r.status != Status.PASSED and not has_error:
                cell.outputs.append(nbformat.v4.new_output(
                    "error", ename=HIDDEN_FAILURE, evalue=r.message or r.status,
                    traceback=[f"{HIDDEN_FAILURE}: {line}" for line in (r.message or r.status).splitlines()]))
            if r.status == Status.PASSED:
                # the grade is the judge's: an error or stderr left in a passed cell would read as a failure
                cell.outputs = [o for o in cell.outputs if o.get("output_type") != "error"]
            for o in cell.outputs:
                if o.get("output_type") == "stream" and o.get("name") == "stderr":
                    o["name"] = "stdout"
                if o.get("output_type") == "execute_result":
                    o["output_type"] = "display_data"
                    o.pop("execution_count", None)
    return executed



def missing_from_gradebook(root: Path, assignments: list[str], db_url: str) -> list[str]:
    """The assignments whose notebooks nbgrader's gradebook does not know yet."""
    from nbgrader.api import Gradebook, MissingEntry

    missing = []
    with Gradebook(db_url) as gb:
        for name in assignments:
            try:
                known = {n.name for n in gb.find_assignment(name).notebooks}
            except MissingEntry:
                known = set()
            if not set(course.Assignment(name, root).notebooks()) <= known:
                missing.append(name)
    return missing



def recorded_in_gradebook(db_url: str) -> set[tuple[str, str, str]]:
    """(student, assignment, notebook) of every submitted notebook the gradebook holds (none without one)."""
    from nbgrader.api import Assignment, Gradebook, Notebook, Student, SubmittedAssignment, SubmittedNotebook

    path = course.gradebook_file(db_url)
    if path is not None and not path.is_file():
        return set()
    with Gradebook(db_url) as gb:
        rows = (gb.db.query(Student.id, Assignment.name, Notebook.name)
                .select_from(SubmittedNotebook)
                .join(SubmittedAssignment, SubmittedNotebook.assignment_id == SubmittedAssignment.id)
                .join(Student, SubmittedAssignment.student_id == Student.id)
                .join(Assignment, SubmittedAssignment.assignment_id == Assignment.id)
                .join(Notebook, SubmittedNotebook.notebook_id == Notebook.id).all())
    return {tuple(r) for r in rows}


def ensure_in_gradebook(root: Path, names: list[str], db_url: str) -> None:
    """Make sure nbgrader's gradebook knows the assignments and their cells (generate_assignment writes them)."""
    generate.register(missing_from_gradebook(root, list(names), db_url), root, db_url)


def withdraw(root: Path, db_url: str, assignment: str, student: str, notebook: str, folder: Path) -> None:
    """Take back a notebook's recorded grade: its autograded notebook, and its scores and late penalty in the
    gradebook (an earlier submission's grade must not stand for one that cannot be graded yet); the submission
    ``folder``'s ``timestamp.txt`` says again what nbgrader's readers should see of it."""
    from nbgrader.api import Gradebook, MissingEntry

    times.show_nbgrader(root, assignment, student, folder)
    dest = course.folder(root, "autograded", student, assignment)
    (dest / f"{notebook}.ipynb").unlink(missing_ok=True)
    (dest / "timestamp.txt").unlink(missing_ok=True)
    with Gradebook(db_url) as gb:
        try:
            nb = gb.find_submission_notebook(notebook, assignment, student)
        except MissingEntry:  # never recorded: nothing to take back
            return
        for grade in nb.grades:  # the submission stays (nbgrader recreates none of its cells later), ungraded
            grade.auto_score = None
            grade.needs_manual_grade = True
        for comment in nb.comments:
            comment.auto_comment = None
        nb.late_submission_penalty = None
        gb.db.commit()


def write_result(root: Path, db_url: str, job, result: NotebookResult, terms: late.Terms,
                 executed: nbformat.NotebookNode | None, rerecord: bool = False) -> nbformat.NotebookNode | None:
    """Record one job's result: the autograded notebook, and its grades and comments in the gradebook, with the
    due date and extension of ``terms`` (what decided the result's lateness, read once by the caller).

    A run that left no executed notebook (unreadable, refused, a grader error) removes the one an earlier
    run wrote, so that nothing reads a stale notebook as this result's; ``rerecord`` (a change of policy
    alone, nothing ran) keeps it.  Returns the autograded notebook it wrote, if any."""
    from nbgrader.api import Gradebook

    warnings.filterwarnings("ignore", module="nbgrader")
    warnings.filterwarnings("ignore", message=".*not in session.*")

    dest = course.folder(root, "autograded", job.student, job.assignment)
    dest.mkdir(parents=True, exist_ok=True)
    written = autograded_notebook(executed, result) if executed is not None else None
    if written is not None:
        write_atomic(dest / f"{job.notebook}.ipynb", nbformat.writes(written))
    elif not rerecord:
        (dest / f"{job.notebook}.ipynb").unlink(missing_ok=True)
    # the time nbgrader's own lateness is computed from: only one a penalty may rest on (autograder.adapters.late.Terms);
    # nbgrader calls the submission autograded (the formgrader's lists) only while the submission's timestamp.txt
    # says the same time as the gradebook, so that file is made to say what this result was judged by
    times.show_nbgrader(root, job.assignment, job.student, Path(job.path).parent)
    timestamp = result.submitted_at if result.submitted_at_source in times.TRUSTED else None
    if timestamp and late.parse_time(timestamp) is None:  # its penalty is in the result (late.Terms); nbgrader gets none
        timestamp = None
    if timestamp:
        write_atomic(dest / "timestamp.txt", timestamp)
    else:
        (dest / "timestamp.txt").unlink(missing_ok=True)
    # nbgrader's exchange names a learner's feedback by the secret their submit left beside the notebook
    secret = Path(job.path).parent / "submission_secret.txt"
    if secret.is_file() and not secret.is_symlink() and secret.stat().st_size < 1024:
        shutil.copyfile(secret, dest / "submission_secret.txt")
    by_ex = {e.id: e for e in result.exercises}
    with Gradebook(db_url) as gb:
        # the policy in force now, whatever an earlier run wrote: a due date or extension removed is removed here
        gb.update_or_create_assignment(job.assignment, duedate=late.parse_time(terms.due))
        gb.update_or_create_student(job.student)
        gb.update_or_create_submission(job.assignment, job.student, timestamp=timestamp,
                                       extension=terms.extension)
        for cell in job.data.solution.cells:
            gid = course.grade_id(cell)
            if not gid:
                continue
            ex = course.exercise_of(cell)
            if course.is_grade(cell):
                grade = gb.find_grade(gid, job.notebook, job.assignment, job.student)
                if ex in by_ex and course.is_tests(cell):
                    grade.auto_score = by_ex[ex].score
                    grade.needs_manual_grade = grade.manual_score is not None
                else:
                    grade.auto_score = None
                    grade.needs_manual_grade = True
            if course.is_solution(cell):
                comment = gb.find_comment(gid, job.notebook, job.assignment, job.student)
                comment.auto_comment = "No response." if (ex in by_ex and by_ex[ex].status == Status.NOT_ATTEMPTED) else None
        notebook = gb.find_submission_notebook(job.notebook, job.assignment, job.student)
        notebook.late_submission_penalty = result.late_penalty or None
        gb.db.commit()
    return written
