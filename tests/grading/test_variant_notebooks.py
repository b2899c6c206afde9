"""The course's per-student variants and planted bugs, notebook by notebook, in the grader's own kernels.

For every notebook with variant cells (:mod:`autograder.values.variants`), under draws that between them hold
every choice of every parameter (:func:`autograder.values.variants.draws`; every combination would be too many
reference runs for the debugging exam), other than the default (which ``tests/grading/test_notebooks.py`` covers):

1. the reference solution runs top to bottom and passes its own tests, visible and hidden: it is what
   each student of that variant is graded against;
2. each exercise whose answer or test cells name a parameter is judged once for each set of values of those
   parameters other than the default:

   * its ``tests/answers/NN/exN_M/copied_default.py`` (an answer with the default variant's values written
     in, what a classmate would hand over) fails, on the hidden tests alone too; so does every other
     ``copied_*.py``, and each of them with the default's values bound again at the top of the answer cell
     (for tests that build their inputs from a parameter, which the grader binds again itself);
   * every ``wrong_*.py`` written for those values (a leading ``# variant: {"PARAM": value}`` line, the
     classic mistakes of one variant) fails, on the hidden tests alone too;
   * every ``correct_*.py`` passes.

Every notebook with variants or planted bugs has at least three combinations, so that two students mostly
differ.
Planted bugs are checked by ``tests/unit/test_plants.py`` (each bug's text is a ``wrong_*.py`` answer, which
``tests/grading/test_notebooks.py`` grades).  Where a notebook has them, each planted part's spec is drawn with its
bug, and a classmate's fixed part must fail: under every draw, the default one included, the part as fixed by
a student of each other draw (their spec written in) fails, on the hidden tests alone too.
"""

from __future__ import annotations

import math

import pytest
from harness import ANSWERS, ROOT, NotebookSession, answer_variant

from autograder.values import course, variants

NOTEBOOKS = [(a.name, nb) for a in course.assignments(ROOT) for nb in a.notebooks()]


def cell_params(nb) -> dict[str, list]:
    """The parameters of a notebook's variant cells (the planted bugs left out: they change no reference)."""
    out: dict[str, list] = {}
    for cell in nb.cells:
        out.update(variants.spec(cell))
    return out


def combinations(nb) -> list[dict]:
    """The draws to run the reference on: :func:`variants.draws`, each with its planted bugs; the default first
    where the notebook has planted parts (a classmate's fixed part is tried under it too), else left out."""
    planted = any(variants.plants(c) for c in nb.cells)
    found = variants.draws(nb)
    return found if planted else found[1:]


WITH_VARIANTS = [(a, n) for a, n in NOTEBOOKS if cell_params(course.read(course.Assignment(a, ROOT).solution(n)))]


def uses(nb) -> dict[str, list[str]]:
    """Each exercise whose answer or test cells name a parameter, and the parameters they name."""
    params = cell_params(nb)
    found: dict[str, list[str]] = {}
    for ex in course.exercises(nb):
        text = "\n".join(nb.cells[i].source for i in [*ex.solution_cells, ex.test_cell])
        if named := variants.named(params, text):
            found[ex.id] = named
    return found


def test_three_notebooks_give_students_their_own_variant():
    assert len(WITH_VARIANTS) >= 3, WITH_VARIANTS


def test_two_students_mostly_differ():
    """Draws are uniform over a notebook's combinations of choices (variant parameters and planted bugs), so two
    students get the same notebook with probability 1 / (number of combinations): at most a third."""
    few = {}
    for a in course.assignments(ROOT):
        for name in a.notebooks():
            nb = course.read(a.solution(name))
            counts = [len(choices) for choices in variants.params(nb).values()]
            if counts and math.prod(counts) < 3:
                few[name] = math.prod(counts)
    assert not few, f"notebooks where two students share a variant too often (combinations): {few}"


@pytest.mark.slow
@pytest.mark.parametrize("assignment,notebook", WITH_VARIANTS, ids=[n for _, n in WITH_VARIANTS])
def test_every_variant(assignment, notebook):
    solution = course.read(course.Assignment(assignment, ROOT).solution(notebook))
    default = {k: v[0] for k, v in cell_params(solution).items()}
    used = uses(solution)
    assert used, f"{notebook}: no exercise names a variant parameter"
    files: dict[str, list] = {}
    for ex_id in used:
        folder = ANSWERS / notebook / ex_id
        files[ex_id] = sorted(folder.glob("*.py"))
        assert (folder / "copied_default.py").is_file(), f"{ex_id}: no tests/answers/{notebook}/{ex_id}/copied_default.py"
    judged: set[tuple] = set()  # (exercise, its parameters' values) already judged
    judged_files: set = set()  # the answers written for a variant that one of those judged
    problems = []
    markers = course.markers(ROOT)
    draws = variants.draws(solution)
    for values in combinations(solution):
        with NotebookSession(assignment, notebook, variant=values) as s:
            run = s.run_solution()
            problems += [f"{values}: solution: {e}" for e in run.errors]
            if run.errors:
                continue
            for ex in s.exercises:
                planted = next((c for i in ex.solution_cells if variants.plants(c := solution.cells[i])), None)
                if planted is not None:
                    # a classmate of every other draw fixed this part: their spec is written in, and it fails here
                    for other in draws[:len(variants.plants(planted))]:
                        if other[variants.plant_param(planted)] == values[variants.plant_param(planted)]:
                            continue
                        text = variants.planted_source(planted.source, [], markers,
                                                       variants.cell_values(solution, other))
                        for hidden_only in (False, True):
                            if s.try_answer(ex, text, hidden_only=hidden_only).passed:
                                problems.append(f"{values}: {ex.id} as fixed by a student of the draw {other} passes"
                                                + (" the hidden tests alone" if hidden_only else ""))
                seen = {p: values[p] for p in used.get(ex.id, [])}
                if not seen or seen == {p: default[p] for p in seen} or (ex.id, *seen.items()) in judged:
                    continue      # this exercise sees the default variant here, or saw these values already
                judged.add((ex.id, *seen.items()))
                for f in files[ex.id]:
                    written_for = answer_variant(f)
                    if written_for and any(values.get(k) != v for k, v in written_for.items()):
                        continue
                    if f.name.startswith("correct_"):
                        outcome = s.try_answer(ex, f.read_text())
                        if not outcome.passed:
                            problems.append(f"{values}: {ex.id}/{f.name} was rejected: {outcome.message[:300]}")
                    elif f.name.startswith("copied_") or written_for:
                        judged_files.add(f)
                        cases = [(f.name, f.read_text())]
                        rebind = variants.binding_lines({p: default[p] for p in seen}, f.read_text())
                        if f.name.startswith("copied_") and rebind:
                            cases.append((f"{f.name} with {rebind.strip()!r} above it", rebind + f.read_text()))
                        for label, text in cases:
                            for hidden_only in (False, True):
                                if s.try_answer(ex, text, hidden_only=hidden_only).passed:
                                    problems.append(f"{values}: {ex.id}/{label} passes"
                                                    + (" the hidden tests alone" if hidden_only else ""))
    for ex_id, found in files.items():
        problems += [f"{ex_id}/{f.name}: written for {answer_variant(f)}, a variant no exercise saw"
                     for f in found if answer_variant(f) and f not in judged_files]
    assert not problems, "\n".join(problems)
