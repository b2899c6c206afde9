"""Planted bugs (the debugging exam): an answer cell whose metadata carries ``autograder.plant`` (bug name ->
[find, replace] pairs), handed out with one bug drawn per student (:mod:`autograder.values.variants`).
Checked here, without a kernel:

* each bug applies (every ``find`` once), gives Python that differs from the solution and does not name
  itself (``variants.problems``); every part offers at least two bugs;
* ``tests/answers/NN_name/exN_M/wrong_<bug>.py`` is exactly the text a student with that bug receives
  (``variants.planted_source``), so ``tests/test_notebooks.py`` grades what students receive, on the
  hidden tests alone too;
* the release holds the default bug, marked as planted, and never the bug list; ``fmt`` keeps the list.
"""

from __future__ import annotations

import ast
import copy

import nbformat
import pytest
from harness import ANSWERS, ROOT

from autograder.values import course, nbfmt, variants

MARKERS = course.markers(ROOT)
PLANTED = [(a, n, course.exercise_of(c), c) for a in course.assignments(ROOT) for n in a.notebooks()
           for c in course.read(a.solution(n)).cells if variants.plants(c)]


def test_some_answer_cell_is_planted():
    assert PLANTED, "no answer cell carries autograder.plant"


@pytest.mark.parametrize("assignment,notebook,exercise,cell", PLANTED, ids=[f"{n}-{e}" for _, n, e, _ in PLANTED])
def test_each_bug_is_what_a_student_receives(assignment, notebook, exercise, cell):
    one = nbformat.v4.new_notebook(cells=[copy.deepcopy(cell)])
    assert not variants.problems(one, MARKERS), variants.problems(one, MARKERS)
    bugs = variants.plants(cell)
    assert len(bugs) >= 2, f"{exercise}: a part offers at least two bugs to draw from"
    solution = variants.planted_source(cell.source, [], MARKERS)
    problems = []
    for bug, pairs in bugs.items():
        planted = variants.planted_source(cell.source, pairs, MARKERS)
        if planted == solution:
            problems.append(f"{bug}: the planted text is the solution")
        try:
            ast.parse(planted)
        except SyntaxError as exc:
            problems.append(f"{bug}: the planted text is not Python ({exc})")
        answer = ANSWERS / notebook / exercise / f"wrong_{bug}.py"
        if not answer.is_file() or answer.read_text().rstrip("\n") != planted:
            problems.append(f"{bug}: {answer.relative_to(ROOT)} is not the planted text")
    assert not problems, f"{exercise}:\n" + "\n".join(problems)
    released = {course.grade_id(c): c for c in course.read(assignment.release(notebook)).cells}[course.grade_id(cell)]
    assert released.source == variants.planted_source(cell.source, next(iter(bugs.values())), MARKERS)
    assert variants.is_planted(released) and not variants.plants(released)


def test_fmt_keeps_the_plant():
    *_, cell = PLANTED[0]
    nb = nbformat.v4.new_notebook(cells=[copy.deepcopy(cell)])
    nb.cells[0].metadata["autograder"]["other"] = 1  # anything else under autograder is dropped
    kept = nbfmt.normalize(nb).cells[0].metadata["autograder"]
    assert kept == {"plant": variants.plants(cell)} or kept == {"plant": cell.metadata["autograder"]["plant"]}
