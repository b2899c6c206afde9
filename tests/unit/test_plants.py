"""Planted bugs (the debugging exam): an answer cell whose metadata carries ``autograder.plant`` (bug name ->
[find, replace] pairs), handed out with one bug drawn per student (:mod:`autograder.values.variants`).
Checked here, without a kernel:

* each bug applies (every ``find`` once), gives Python that differs from the solution and does not name
  itself (``variants.problems``); every part offers at least two bugs;
* ``tests/answers/NN_name/exN_M/wrong_<bug>.py`` is exactly the text a student with that bug and the
  default spec receives (``variants.planted_source``), so ``tests/grading/test_notebooks.py`` grades what students
  receive, on the hidden tests alone too;
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
    spec = variants.cell_values(course.read(assignment.solution(notebook)),
                                variants.default(course.read(assignment.solution(notebook))))
    solution = variants.planted_source(cell.source, [], MARKERS, spec)
    problems = []
    for bug, pairs in bugs.items():
        planted = variants.planted_source(cell.source, pairs, MARKERS, spec)
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
    assert released.source == variants.planted_source(cell.source, next(iter(bugs.values())), MARKERS, spec)
    assert variants.is_planted(released) and not variants.plants(released)


def test_fmt_keeps_the_plant():
    *_, cell = PLANTED[0]
    nb = nbformat.v4.new_notebook(cells=[copy.deepcopy(cell)])
    nb.cells[0].metadata["autograder"]["other"] = 1  # anything else under autograder is dropped
    kept = nbfmt.normalize(nb).cells[0].metadata["autograder"]
    assert kept == {"plant": variants.plants(cell)} or kept == {"plant": cell.metadata["autograder"]["plant"]}


EXAMS = sorted({(a.name, n) for a, n, _, _ in PLANTED})


@pytest.mark.parametrize("assignment,notebook", EXAMS, ids=[n for _, n in EXAMS])
def test_a_planted_part_draws_its_spec_with_its_bug(assignment, notebook):
    """Every planted part has a spec of its own (a variant cell of the same exercise), drawn with its bug: the
    i-th bug comes with the i-th choice of each spec parameter, so two students handed different bugs in a part
    have different specs there, and a class spreads over every draw."""
    nb = course.read(course.Assignment(assignment, ROOT).solution(notebook))
    tied = variants.spec_params(nb)
    planted = [c for c in nb.cells if variants.plants(c)]
    assert {variants.plant_param(c) for c in planted} == set(tied.values()), \
        "every planted part has spec parameters of its own"
    choices = variants.params(nb)
    seen: dict[str, set] = {}
    for i in range(120):
        drawn = variants.draw(nb, bytes(range(32)), assignment, notebook, f"s{i:03d}")
        for name, bug_param in tied.items():
            index = choices[bug_param].index(drawn[bug_param])
            assert drawn[name] == choices[name][index], (name, drawn)
            seen.setdefault(name, set()).add(index)
    assert all(len(found) == len(choices[name]) for name, found in seen.items()), seen


@pytest.mark.parametrize("assignment,notebook", EXAMS, ids=[n for _, n in EXAMS])
def test_each_student_is_handed_their_own_spec_written_in(assignment, notebook):
    """The copy a student is handed holds their spec as literals, where the solution reads the parameters by
    name: the fixed part of one draw is not the fixed part of another, for every part and every two draws."""
    a = course.Assignment(assignment, ROOT)
    solution, release = course.read(a.solution(notebook)), course.read(a.release(notebook))
    tied = variants.spec_params(solution)
    fixed: dict[str, list[str]] = {}
    for values in variants.draws(solution):
        handed = {course.grade_id(c): c.source for c in variants.plant(release, solution, values, MARKERS).cells
                  if variants.is_planted(c)}
        for cell in solution.cells:
            if not variants.plants(cell):
                continue
            gid = course.grade_id(cell)
            names = [n for n, bug in tied.items() if bug == variants.plant_param(cell)]
            assert names and all(n in cell.source for n in names), f"{gid}: the solution reads its spec by name"
            spec = variants.cell_values(solution, values)
            bug = variants.plants(cell)[values[variants.plant_param(cell)]]
            assert handed[gid] == variants.planted_source(cell.source, bug, MARKERS, spec)
            assert not variants.named(names, "".join(line.split("#")[0] for line in handed[gid].splitlines(True)
                                                     if not line.lstrip().startswith(('"""', "#")))), \
                f"{gid}: the handed copy still reads {names} by name"
            fixed.setdefault(gid, []).append(variants.planted_source(cell.source, [], MARKERS, spec))
    for gid, texts in fixed.items():
        count = len(variants.plants(next(c for c in solution.cells if course.grade_id(c) == gid)))
        assert len(set(texts[:count])) == count, f"{gid}: two draws share a fixed text"


def test_a_spec_parameter_has_one_choice_per_bug():
    *_, cell = PLANTED[0]
    exercise = course.exercise_of(cell)
    spec = nbformat.v4.new_code_cell("N = 1\n")
    spec.metadata = {"nbgrader": {"grade": False, "solution": False, "locked": True, "schema_version": 3,
                                  "grade_id": f"{exercise}_variant"},
                     "autograder": {"variant": {"N": list(range(1, len(variants.plants(cell))))}}}
    nb = nbformat.v4.new_notebook(cells=[spec, copy.deepcopy(cell)])
    assert any("one choice per bug" in p for p in variants.problems(nb, MARKERS)), variants.problems(nb, MARKERS)
    spec.metadata["autograder"]["variant"]["N"] = list(range(1, len(variants.plants(cell)) + 1))
    assert not variants.problems(nb, MARKERS)
