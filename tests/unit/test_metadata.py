"""nbgrader metadata is sane, the committed notebooks are normalized and in sync with solutions/."""

from __future__ import annotations

import ast
import re
import sys
from collections import Counter

import pytest
import support
from harness import ROOT

from autograder.values import course, learner_view, nbfmt, variants

ASSIGNMENTS = course.assignments(ROOT)
SOLUTIONS = [a.solution(n) for a in ASSIGNMENTS for n in a.notebooks()]


def test_there_are_notebooks():
    assert SOLUTIONS, "no notebooks in solutions/"


def test_grade_ids_unique_across_the_course():
    ids = Counter(course.grade_id(c) for p in SOLUTIONS for c in course.read(p).cells if course.grade_id(c))
    assert not [i for i, n in ids.items() if n > 1], f"duplicated grade ids: {[i for i, n in ids.items() if n > 1]}"


def _module_names(source: str) -> set[str]:
    """The names a cell binds in the notebook's namespace (not inside its functions or classes)."""
    names: set[str] = set()
    for stmt in ast.parse(source).body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(stmt.name)
            continue
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


@pytest.mark.parametrize("path", SOLUTIONS, ids=[p.stem for p in SOLUTIONS])
def test_exercise_cells(path):
    nb = course.read(path)
    number = int(path.stem.split("_")[0])
    exercises = course.exercises(nb)
    assert exercises, "a notebook needs graded exercises"
    for ex in exercises:
        assert ex.id.startswith(f"ex{number}_"), f"{ex.id}: exercise ids of notebook {number} start with ex{number}_"
        assert len(ex.solution_cells) == 1, f"{ex.id}: exactly one answer cell ({ex.id}_solution)"
        assert ex.test_cell > ex.solution_cells[0], f"{ex.id}: the test cell follows the answer cell"
        assert ex.points > 0, f"{ex.id}: points must be > 0"
        assert ex.title.startswith(f"Exercise {ex.number}"), f"{ex.id}: header 'Exercise {ex.number} — ...' expected"
        answer = nb.cells[ex.solution_cells[0]]
        assert "### BEGIN SOLUTION" in answer.source and "### END SOLUTION" in answer.source
        meta = course.nbgrader_meta(answer)
        assert meta.get("solution") and not meta.get("grade"), f"{ex.id}: answer cell must be an ungraded solution cell"
        tests = nb.cells[ex.test_cell]
        meta = course.nbgrader_meta(tests)
        assert meta.get("locked"), f"{ex.id}: the test cell must be locked"
        src = tests.source
        marks = course.markers(ROOT)
        assert src.count(marks.begin_hidden) == 1 and src.count(marks.end_hidden) == 1, \
            f"{ex.id}: one hidden-test block"
        hidden = marks.hidden_block(src)
        assert re.search(r'@hidden_test\("%s"\)' % ex.id, hidden), f"{ex.id}: hidden block must use @hidden_test(\"{ex.id}\")"
        visible = learner_view.visible_source(tests)
        assert "assert" in visible, f"{ex.id}: visible tests must assert something"
        leaked = _module_names(src.replace(marks.begin_hidden, "").replace(marks.end_hidden, "")) - {"_", "hidden_test"}
        leaked = {n for n in leaked if not n.startswith(f"_{ex.id}_") and n not in sys.stdlib_module_names}
        assert not leaked, (f"{ex.id}: the test cell binds {sorted(leaked)} in the notebook's namespace, where a "
                            f"learner's helper of that name would be replaced: put the visible tests in a function, "
                            f"and name what must stay at module level _{ex.id}_...")
    for cell in nb.cells:
        if course.grade_id(cell) and not course.exercise_of(cell) and not variants.is_variant_cell(cell):
            pytest.fail(f"grade id {course.grade_id(cell)} does not follow exN_M_solution / exN_M_tests / exN_M_variant")
    assert not variants.problems(nb), variants.problems(nb)


@pytest.mark.parametrize("path", SOLUTIONS, ids=[p.stem for p in SOLUTIONS])
def test_release_hides_solutions_and_hidden_tests(path):
    a = course.Assignment(path.parent.name, ROOT)
    text = a.release(path.stem).read_text()
    assert "BEGIN HIDDEN TESTS" not in text and "hidden_test" not in text
    assert "BEGIN SOLUTION" not in text
    assert '"plant"' not in text  # a planted answer cell's bug list stays in solutions/
    solution = course.read(path)
    stubbed = [c for c in solution.cells if course.is_solution(c) and not variants.plants(c)]
    if stubbed:  # every answer cell but a planted one is handed out as the stub
        assert 'raise NotImplementedError(\\"exercise not attempted yet\\")' in text


def test_committed_notebooks_are_normalized():
    paths = sorted(ROOT.glob("solutions/*/*.ipynb")) + sorted(ROOT.glob("notebooks/*/*.ipynb"))
    bad = [str(p.relative_to(ROOT)) for p in paths if nbfmt.format_file(p, check=True)]
    assert not bad, f"run `make fmt`: {bad}"


def test_notebooks_in_sync_with_solutions():
    problems = support.out_of_sync(ROOT)
    assert not problems, "run `make release`:\n" + "\n".join(problems)


def test_released_cells_carry_their_own_checksum():
    """nbgrader's Validate and autograde compare each graded or locked cell with the checksum it carries: a
    released cell whose text changed after the checksum was made (a blank line the release trimmed) would
    tell every learner that its tests were changed."""
    from nbgrader.utils import compute_checksum

    bad = [f"{p.relative_to(ROOT)}: {course.grade_id(c)}" for p in sorted(ROOT.glob("notebooks/*/*.ipynb"))
           for c in course.read(p).cells
           if course.nbgrader_meta(c).get("checksum") and course.nbgrader_meta(c)["checksum"] != compute_checksum(c)]
    assert not bad, "checksums that do not match their cells:\n" + "\n".join(bad)


@pytest.mark.parametrize("path", SOLUTIONS, ids=[p.stem for p in SOLUTIONS])
def test_the_introduction_says_what_grading_runs(path):
    """Each notebook's introduction tells the learner, in the grader's own words, that a grade runs the answer
    cells and what they need (autograder.gradepath), and that demos and scratch cells are theirs."""
    from autograder.values.messages import GRADE_PATH

    intro = course.read(path).cells[0]
    said = GRADE_PATH[0].upper() + GRADE_PATH[1:]
    assert intro.cell_type == "markdown" and said in intro.source, f"{path.name}'s introduction does not say: {said}"
