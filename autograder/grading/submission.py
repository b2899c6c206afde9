"""What a submission holds, as the steps and the commands ask it: which notebook a file is (its grade ids,
a renamed copy recognised by its cells), whether an exercise was attempted, and how a cell of another
per-student variant is noted.  Reading a submission is step 1's (:mod:`autograder.grading.steps.read`),
rebuilding the notebook to run step 2's (:mod:`autograder.grading.steps.restore`).
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat

from autograder.grading.steps.read import read_submission
from autograder.values import course


def graded_ids_of(path: Path) -> set[str]:
    """The nbgrader grade ids a submitted notebook carries (read without trust; none when it does not read)."""
    submitted = read_submission(path)
    return set() if submitted.problem or submitted.nb is None else course.graded_ids(submitted.nb)


def notebook_ids(assignment: course.Assignment) -> dict[str, set[str]]:
    """Each notebook of ``assignment`` and the nbgrader grade ids of its cells, by which a renamed copy
    is recognised (:func:`renamed_notebook`)."""
    return {nb: course.graded_ids(course.read(assignment.solution(nb))) for nb in assignment.notebooks()}


def renamed_notebook(path: Path, names: dict[str, set[str]]) -> str | None:
    """The notebook of ``names`` (notebook -> grade ids, :func:`notebook_ids`) that a file not named after
    it is: the one whose cells it carries, and no other notebook's (``01_tensors (1).ipynb``,
    ``01_tensors-Copy1.ipynb``, another case).  None when it carries none, several, or does not read."""
    ids = graded_ids_of(path)
    carried = {nb for nb, nb_ids in names.items() if nb_ids & ids}
    return carried.pop() if len(carried) == 1 else None


VARIANT_NOTE = "holds another variant than the one this student is graded on"
_VARIANT_TAMPER = re.compile(rf"^variant cell (\S+) {VARIANT_NOTE} \(graded with (.+)\)$")


def variant_note(gid: str, values: dict) -> str:
    """The instructor's note for a variant cell that holds another variant than the student's own (``values``)."""
    mine = ", ".join(f"{k} = {v!r}" for k, v in values.items())
    return f"variant cell {gid} {VARIANT_NOTE} (graded with {mine})"


def learner_variant_lines(tampering: list[str]) -> list[str]:
    """What a learner is told of :func:`variant_note`: that the tests ran on their own variant, and which
    (values the grader drew for them, never what the notebook held)."""
    lines = []
    for note in tampering:
        m = _VARIANT_TAMPER.match(str(note))
        if m:
            lines.append(f"Your notebook holds another variant than yours (cell {m.group(1)}): it was graded on your "
                         f"own, {m.group(2)}, so answers written for the other one may fail here. Answer for your "
                         "own variant (ask your instructor for your own copy if you worked in someone else's).")
    return lines


def attempted(student: nbformat.NotebookNode | None, release: nbformat.NotebookNode, ex: course.Exercise) -> bool:
    """Whether the learner changed any of the exercise's answer cells from the released stub."""
    if student is None:
        return False
    stubs = {course.grade_id(c): c.source.strip() for c in release.cells
             if course.exercise_of(c) == ex.id and course.is_solution(c)}
    for cell in student.cells:
        gid = course.grade_id(cell)
        if gid in stubs and cell.get("source", "").strip() != stubs[gid]:
            return True
    return False


