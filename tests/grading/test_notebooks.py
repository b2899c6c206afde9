"""Every notebook: the solution passes its own tests, each exercise's tests tell right from wrong, and the
grade path changes no honest verdict.

For each notebook, two kernels (see ``harness.py``):

1. the solution runs on its grade path, as grading runs it (:mod:`autograder.gradepath`), with no error,
   and every test cell, visible and hidden, passes;
2. every exercise has at least one seed-dependent numeric hidden observation;
3. the reference answer and every ``tests/answers/NN/exN_M/correct_*.py`` earn the
   points; the released stub and every ``wrong_*.py`` earn nothing, and are rejected
   by the hidden tests alone too (visible asserts can be switched off by a submission): where the
   visible asserts passed, the hidden block that ran after them judged the answer on its own
   observations; where they stopped it, the hidden block runs alone;
4. a ``wrong_*.py`` whose first line is ``# caught by the visible tests`` fails the visible
   asserts, which run first in the test cell as in the learner's released copy;
5. the path is proven on the reference: the solution runs top to bottom in a second kernel, and before
   every graded cell each name it reads (the globals of the functions it reads included) holds the same
   value as on the path, torch's settings are the same (:func:`autograder.gradepath.differences`), and so
   are the hidden tests' observations;
6. every answer tried in 3 gets the same verdict top to bottom as on the path.
"""

from __future__ import annotations

import pytest
from harness import (
    ROOT,
    SEED2,
    NotebookSession,
    caught_by_visible,
    numeric_seed_dependent,
    variant_files,
)

from autograder import gradepath
from autograder.values import course

NOTEBOOKS = [(a.name, nb) for a in course.assignments(ROOT) for nb in a.notebooks()]


@pytest.mark.slow
@pytest.mark.parametrize("assignment,notebook", NOTEBOOKS, ids=[n for _, n in NOTEBOOKS])
def test_notebook(assignment, notebook):
    problems: list[str] = []
    variants = variant_files(notebook)
    tried: list[tuple] = []  # (exercise, label, answer, passed on the path)
    with NotebookSession(assignment, notebook) as s:
        run = s.run_solution()
        problems += [f"solution: {e}" for e in run.errors]
        assert not problems, "\n".join(problems)
        for ex in s.exercises:
            p2 = s.payload_with_seed(ex, SEED2)
            if not p2 or p2.get("error"):
                # a run that did not finish says nothing of the tests' design; a multi-process test (07's DDP) can
                # fail to start its processes on a loaded machine: once more, then report what it raised
                p2 = s.payload_with_seed(ex, SEED2)
            if not p2 or p2.get("error"):
                problems.append(f"{ex.id}: the hidden tests did not run with a second seed: "
                                f"{(p2 or {}).get('error') or 'no observations'}"[:500])
            elif not numeric_seed_dependent(s.references[ex.id], p2):
                problems.append(f"{ex.id}: no numeric hidden observation depends on the seed")
            files = variants.get(ex.id, [])
            if not any(f.name.startswith("correct_") for f in files):
                problems.append(f"{ex.id}: no tests/answers/{notebook}/{ex.id}/correct_*.py")
            if not any(f.name.startswith("wrong_") for f in files):
                problems.append(f"{ex.id}: no tests/answers/{notebook}/{ex.id}/wrong_*.py")
            cases = [("reference", s.solution.cells[ex.solution_cells[0]].source, True),
                     ("released stub", s.stub_source(ex), False)]
            cases += [(f.name, f.read_text(), f.name.startswith("correct_")) for f in files]
            for label, source, should_pass in cases:
                outcome = s.try_answer(ex, source)
                tried.append((ex, label, source, outcome.passed))
                if outcome.passed != should_pass:
                    verb = "was rejected" if should_pass else "earned the points"
                    problems.append(f"{ex.id}/{label} {verb}: {outcome.message[:300]}")
                if should_pass:
                    continue
                # visible asserts run in the learner's process and can be switched off there: the hidden
                # observations alone must reject every wrong answer (they ran after the visible asserts passed)
                if not outcome.hidden_ran and s.try_answer(ex, source, hidden_only=True).passed:
                    problems.append(f"{ex.id}/{label} passes the hidden tests alone")
                if caught_by_visible(source) and outcome.hidden_ran:
                    problems.append(f"{ex.id}/{label} passes the visible tests: the learner's own check "
                                    "misses the bug its section teaches")
    # the proof: top to bottom, every graded cell sees what it saw on the path, and every answer gets the same verdict
    with NotebookSession(assignment, notebook, top_to_bottom=True) as full:
        whole = full.run_solution()
        problems += [f"solution, top to bottom: {e}" for e in whole.errors]
        problems += gradepath.differences(s.armed, s.path, whole.seen, run.seen)
        problems += [f"{e}: the hidden tests observe other values top to bottom than on the path"
                     for e in sorted(run.references) if whole.references.get(e) != run.references[e]]
        if not problems:
            for ex, label, source, passed in tried:
                if full.try_answer(ex, source).passed != passed:
                    problems.append(f"{ex.id}/{label} {'passes' if not passed else 'fails'} top to bottom and "
                                    f"{'passes' if passed else 'fails'} on the path ({s.path.summary})")
    assert not problems, "\n".join(problems)
