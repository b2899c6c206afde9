"""Where an error was raised, as the grader tells it: read from an executed notebook's tracebacks (no kernel).

The rules one at a time, on the fixture course's two exercises: an error raised inside the learner's answer
is told at the answer's line, one raised in another exercise's answer or in a cell of the learner's own
names that cell, one raised by the tests themselves (or in a cell of the instructor's) is the tests'; an
exercise whose own stub still raises is not attempted, one whose tests use another exercise's stub says
which; only the stub's own error counts as the stub, and a forged traceback moves nothing but a line.
"""

from __future__ import annotations

import copy

import nbformat
import pytest
from support import bare_fixture_course

from autograder.grading.coursedata import NotebookData
from autograder.grading.steps.judge import outcomes, score
from autograder.values import course, messages

STUB = 'NotImplementedError: exercise not attempted yet'
ADD_ONE = "def add_one(x):\n    y = x + 1\n    return helper(y)\n"


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = bare_fixture_course(tmp_path_factory.mktemp("places") / "course")
    return NotebookData.loaded(course.Assignment("00_fixture", root), "00_fixture")


def executed(data, answers: dict[str, str], errors: dict[str, tuple[str, list[str]]], extra: list[str] = ()):
    """The release with ``answers`` (grade id -> source) and ``extra`` cells of the learner's own before the
    tests, every code cell run in order; ``errors``: a test cell's error (text, traceback frames' headers)."""
    nb = copy.deepcopy(data.release)
    cells = []
    for cell in nb.cells:
        gid = course.grade_id(cell)
        if gid in answers:
            cell.source = answers[gid]
        if gid == "ex0_1_tests":
            cells += [nbformat.v4.new_code_cell(src) for src in extra]
        cells.append(cell)
    nb.cells = cells
    count = 0
    for cell in nb.cells:
        if cell.cell_type == "code":
            count += 1
            cell.execution_count, cell.outputs = count, []
            if course.grade_id(cell) in errors:
                text, frames = errors[course.grade_id(cell)]
                name, value = text.split(": ", 1)
                cell.outputs = [nbformat.v4.new_output("error", ename=name, evalue=value, traceback=frames)]
    return nb


def count_of(nb, gid: str | None = None, source: str | None = None) -> int:
    return next(c.execution_count for c in nb.cells if c.cell_type == "code"
                and (course.grade_id(c) == gid if gid else c.source == source))


def results(data, nb) -> dict[str, object]:
    return {r.id: r for r in score(data, outcomes(nb, data.exercises), None, nb, nb=nb)}


def test_an_error_in_the_answer_is_told_at_the_answers_line(data):
    nb = executed(data, {"ex0_1_solution": ADD_ONE}, {})
    a, t = count_of(nb, "ex0_1_solution"), count_of(nb, "ex0_1_tests")
    nb = executed(data, {"ex0_1_solution": ADD_ONE},
                  {"ex0_1_tests": ("NameError: name 'helper' is not defined",
                                   [f"Cell In[{t}], line 1", f"Cell In[{a}], line 3, in add_one(x)"])})
    r = results(data, nb)["ex0_1"]
    assert (r.status, r.message) == ("failed", "your function raised NameError (answer cell, line 3)")
    assert r.failed_checks == [{"check": "visible tests", "cause": "your function raised NameError",
                                "where": "answer cell, line 3"}]


def test_a_stub_that_still_raises_is_not_attempted_and_a_borrowed_one_is_named(data):
    started = "def double(x):\n    # later\n    raise NotImplementedError(\"exercise not attempted yet\")\n"
    uses_one = "def double(x):\n    return add_one(x) + add_one(x) - 2\n"
    nb = executed(data, {"ex0_2_solution": started}, {})
    a1, a2 = count_of(nb, "ex0_1_solution"), count_of(nb, "ex0_2_solution")
    t1, t2 = count_of(nb, "ex0_1_tests"), count_of(nb, "ex0_2_tests")
    frames = {"ex0_1_tests": (STUB, [f"Cell In[{t1}], line 1", f"Cell In[{a1}], line 4, in add_one(x)"]),
              "ex0_2_tests": (STUB, [f"Cell In[{t2}], line 1", f"Cell In[{a2}], line 3, in double(x)"])}
    r = results(data, executed(data, {"ex0_2_solution": started}, frames))
    assert (r["ex0_1"].status, r["ex0_1"].message) == ("not attempted", messages.NOT_STARTED)  # untouched stub
    assert (r["ex0_2"].status, r["ex0_2"].message) == ("not attempted", f"{messages.STILL_STUB} (answer cell, line 3)")
    # exercise 0.2's tests stopped by exercise 0.1's stub: 0.2 is attempted, and failed because of 0.1
    frames["ex0_2_tests"] = (STUB, [f"Cell In[{t2}], line 1", f"Cell In[{a2}], line 2, in double(x)",
                                    f"Cell In[{a1}], line 4, in add_one(x)"])
    r = results(data, executed(data, {"ex0_2_solution": uses_one}, frames))["ex0_2"]
    assert (r.status, r.message) == ("failed", "your function raised NotImplementedError: exercise 0.1 is not "
                                               "attempted yet, and these tests use it (answer cell of exercise 0.1, "
                                               "line 4)")
    # a NotImplementedError of the learner's own words is a failure, not the stub
    frames["ex0_2_tests"] = ("NotImplementedError: not for 3-D input", frames["ex0_2_tests"][1][:2])
    r = results(data, executed(data, {"ex0_2_solution": uses_one}, frames))["ex0_2"]
    assert (r.status, r.message) == ("failed", "your function raised NotImplementedError (answer cell, line 2)")


def test_the_learners_own_cells_and_the_instructors(data):
    own, instructors = "def helper(y):\n    raise ValueError(y)\n", next(
        c.source for c in data.release.cells if c.cell_type == "code" and not course.grade_id(c))
    nb = executed(data, {"ex0_1_solution": ADD_ONE}, {}, extra=[own])
    a, t, o, i = (count_of(nb, "ex0_1_solution"), count_of(nb, "ex0_1_tests"), count_of(nb, source=own),
                  count_of(nb, source=instructors))
    tb = [f"Cell In[{t}], line 1", f"Cell In[{a}], line 3, in add_one(x)", f"Cell In[{o}], line 2, in helper(y)"]
    r = results(data, executed(data, {"ex0_1_solution": ADD_ONE}, {"ex0_1_tests": ("ValueError: x", tb)},
                               extra=[own]))["ex0_1"]
    assert r.message == "your code raised ValueError (a cell of your own, line 2)"
    # a frame in a cell of the instructor's is not the learner's: the innermost of theirs is told
    tb[-1] = f"Cell In[{i}], line 1, in <module>"
    r = results(data, executed(data, {"ex0_1_solution": ADD_ONE}, {"ex0_1_tests": ("ValueError: x", tb)},
                               extra=[own]))["ex0_1"]
    assert r.message == "your function raised ValueError (answer cell, line 3)"
    # the tests' own error: their line, never a name of the learner's; a forged frame moves only a line
    r = results(data, executed(data, {"ex0_1_solution": ADD_ONE}, {"ex0_1_tests": (
        "MyError: SECRET", [f"Cell In[{t}], line 1", "Cell In[99999999999], line 7", f"Cell In[{a}], line x"])},
        extra=[own]))["ex0_1"]
    assert r.message == "the tests raised an exception (test cell, line 1)" and "SECRET" not in str(r.failed_checks)
