"""Planted bugs: an answer cell whose metadata carries ``autograder.plant`` (bug name -> [find, replace] pairs).

A student's copy of such a cell is the text of its solution region (between the marker lines, markers
removed) with the pairs of one bug applied.  Checked here, without a kernel:

* each ``find`` occurs exactly once in the region, and the planted text is Python that differs from it;
* no replacement names its bug (the name must not show in a student's copy);
* every part offers at least two bugs;
* ``tests/answers/NN_name/exN_M/wrong_<bug>.py`` is exactly the planted text, so that
  ``tests/test_notebooks.py`` grades what a student receives;
* ``autograder fmt`` keeps the entry.
"""

from __future__ import annotations

import ast
import copy

import nbformat
import pytest
from harness import ANSWERS, ROOT

from autograder.values import course, nbfmt

MARKERS = course.markers(ROOT)


def region(source: str) -> str:
    lines = source.splitlines(keepends=True)
    begin = next(i for i, line in enumerate(lines) if MARKERS.begin_solution in line)
    end = next(i for i, line in enumerate(lines) if MARKERS.end_solution in line)
    return "".join(lines[begin + 1:end])


def plant(cell) -> dict:
    auto = cell.get("metadata", {}).get("autograder")
    return auto.get("plant", {}) if isinstance(auto, dict) else {}


PLANTED = [(a.solution(n).stem, course.exercise_of(c), c) for a in course.assignments(ROOT) for n in a.notebooks()
           for c in course.read(a.solution(n)).cells if plant(c)]


def test_some_answer_cell_is_planted():
    assert PLANTED, "no answer cell carries autograder.plant"


@pytest.mark.parametrize("notebook,exercise,cell", PLANTED, ids=[f"{n}-{e}" for n, e, _ in PLANTED])
def test_each_bug_plants_and_its_wrong_answer_is_what_a_student_receives(notebook, exercise, cell):
    assert course.is_solution(cell), f"{exercise}: only an answer cell carries planted bugs"
    text = region(cell.source)
    bugs = plant(cell)
    assert len(bugs) >= 2, f"{exercise}: a part offers at least two bugs to draw from"
    problems = []
    for bug, pairs in bugs.items():
        planted = text
        for find, replace in pairs:
            if text.count(find) != 1:
                problems.append(f"{bug}: {find!r} occurs {text.count(find)} times in the solution region")
            if bug in replace:
                problems.append(f"{bug}: a replacement names the bug")
            planted = planted.replace(find, replace)
        if planted == text:
            problems.append(f"{bug}: the planted text is the solution")
        try:
            ast.parse(planted)
        except SyntaxError as exc:
            problems.append(f"{bug}: the planted text is not Python ({exc})")
        answer = ANSWERS / notebook / exercise / f"wrong_{bug}.py"
        if not answer.is_file() or answer.read_text() != planted:
            problems.append(f"{bug}: {answer.relative_to(ROOT)} is not the planted text")
    assert not problems, f"{exercise}:\n" + "\n".join(problems)


def test_fmt_keeps_the_plant():
    _, _, cell = PLANTED[0]
    nb = nbformat.v4.new_notebook(cells=[copy.deepcopy(cell)])
    nb.cells[0].metadata["autograder"]["other"] = 1  # anything else under autograder is dropped
    kept = nbfmt.normalize(nb).cells[0].metadata["autograder"]
    assert kept == {"plant": plant(cell)}
