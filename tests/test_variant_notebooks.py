"""The course's per-student variants and planted bugs, notebook by notebook, in the grader's own kernels.

For every notebook with variant cells (:mod:`autograder.values.variants`), under every combination of its
parameters other than the default (which ``tests/test_notebooks.py`` covers):

1. the reference solution runs top to bottom and passes its own tests, visible and hidden: it is what
   each student of that variant is graded against;
2. each ``tests/answers/NN/exN_M/copied_default.py`` (an answer with the default variant's numbers
   written in, what a classmate would hand over) fails that exercise, on the hidden tests alone too;
3. every ``correct_*.py`` of an exercise with a variant still passes (under the first combination).

Planted bugs are checked by ``tests/test_plants.py`` (each bug's text is a ``wrong_*.py`` answer, which
``tests/test_notebooks.py`` grades).
"""

from __future__ import annotations

import itertools

import pytest
from harness import ANSWERS, ROOT, NotebookSession, variant_files

from autograder.values import course, variants

NOTEBOOKS = [(a.name, nb) for a in course.assignments(ROOT) for nb in a.notebooks()]


def cell_params(nb) -> dict[str, list]:
    """The parameters of a notebook's variant cells (the planted bugs left out: they change no reference)."""
    out: dict[str, list] = {}
    for cell in nb.cells:
        out.update(variants.spec(cell))
    return out


def combinations(nb) -> list[dict]:
    found = cell_params(nb)
    combos = [dict(zip(found, values)) for values in itertools.product(*found.values())]
    return [c for c in combos if c != {k: v[0] for k, v in found.items()}]


WITH_VARIANTS = [(a, n) for a, n in NOTEBOOKS if cell_params(course.read(course.Assignment(a, ROOT).solution(n)))]


def owners(nb) -> dict[str, set[str]]:
    """Each exercise with a variant cell, and its parameters."""
    return {variants.VARIANT_ID_RE.match(course.grade_id(c)).group(1): set(variants.spec(c))
            for c in nb.cells if variants.is_variant_cell(c)}


def test_three_notebooks_give_students_their_own_variant():
    assert len(WITH_VARIANTS) >= 3, WITH_VARIANTS


@pytest.mark.slow
@pytest.mark.parametrize("assignment,notebook", WITH_VARIANTS, ids=[n for _, n in WITH_VARIANTS])
def test_every_variant(assignment, notebook):
    solution = course.read(course.Assignment(assignment, ROOT).solution(notebook))
    files = {ex: found + sorted((ANSWERS / notebook / ex).glob("copied_*.py")) for ex, found in variant_files(notebook).items()}
    mine = owners(solution)
    for ex_id in mine:
        assert any(f.name == "copied_default.py" for f in files.get(ex_id, [])), \
            f"{ex_id}: no tests/answers/{notebook}/{ex_id}/copied_default.py"
    problems = []
    for n, values in enumerate(combinations(solution)):
        with NotebookSession(assignment, notebook, variant=values) as s:
            run = s.run_solution()
            problems += [f"{values}: solution: {e}" for e in run.errors]
            if run.errors:
                continue
            for ex in s.exercises:
                if ex.id not in mine:
                    continue
                for f in files.get(ex.id, []):
                    if f.name == "copied_default.py":
                        for hidden_only in (False, True):
                            if s.try_answer(ex, f.read_text(), hidden_only=hidden_only).passed:
                                problems.append(f"{values}: {ex.id}/copied_default.py passes"
                                                + (" the hidden tests alone" if hidden_only else ""))
                    elif f.name.startswith("correct_") and n == 0:
                        outcome = s.try_answer(ex, f.read_text())
                        if not outcome.passed:
                            problems.append(f"{values}: {ex.id}/{f.name} was rejected: {outcome.message[:300]}")
    assert not problems, "\n".join(problems)
