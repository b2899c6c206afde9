"""Every notebook: the solution passes its own tests, and each exercise's tests tell right from wrong.

For each notebook, one kernel (see ``harness.py``):

1. the solution runs top to bottom with no error, and every test cell, visible
   and hidden, passes;
2. every exercise has at least one seed-dependent numeric hidden observation;
3. the reference answer and every ``tests/answers/NN/exN_M/correct_*.py`` earn the
   points; the released stub and every ``wrong_*.py`` earn nothing, and are rejected
   by the hidden tests alone too (visible asserts can be switched off by a submission);
4. a ``wrong_*.py`` whose first line is ``# caught by the visible tests`` fails the visible
   asserts alone, as the learner's released copy runs them;
5. the short run is proven, as the grader proves it before skipping anything
   (:func:`autograder.grading.references.prove_short`): the solution run short in a fresh kernel gives the
   same observations, and every graded cell, and the end of the notebook, sees the same values,
   generators and settings as in the full run.  When it fails, the message names the graded cell
   that saw a difference and the cells skipped before it;
6. every answer tried in 3 gets the same verdict with the short run's cells skipped: the proof
   covers an answer that reads only names the reference's answer and test cell read; every other
   answer is tried again in a second kernel that ran the solution short, and a difference names
   the exercise, the answer and the cells skipped before its test cell.
"""

from __future__ import annotations

import pytest
from harness import (
    ROOT,
    SEED2,
    NotebookSession,
    caught_by_visible,
    numeric_seed_dependent,
    reads_beyond_reference,
    variant_files,
)

from autograder.grading.references import NOTHING_TO_SKIP
from autograder.values import course

NOTEBOOKS = [(a.name, nb) for a in course.assignments(ROOT) for nb in a.notebooks()]


@pytest.mark.slow
@pytest.mark.parametrize("assignment,notebook", NOTEBOOKS, ids=[n for _, n in NOTEBOOKS])
def test_notebook(assignment, notebook):
    problems: list[str] = []
    variants = variant_files(notebook)
    with NotebookSession(assignment, notebook) as s:
        run = s.run_solution()
        problems += [f"solution: {e}" for e in run.errors]
        assert not problems, "\n".join(problems)
        plan = s.prove_short()
        # a notebook whose every demo calls the learner's code has nothing to skip: it is graded in full
        nothing = plan.failure == NOTHING_TO_SKIP
        assert nothing or plan.failure is None, f"the short run of {notebook} is not proven: {plan.failure}"
        assert nothing or plan.skip_sources, f"the short run of {notebook} skips nothing"
        tried: list[tuple] = []  # (exercise, label, answer, passed in full)
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
                if not should_pass and s.try_answer(ex, source, hidden_only=True).passed:
                    # visible asserts run in the learner's process and can be switched off there:
                    # the hidden observations alone must reject every wrong answer
                    problems.append(f"{ex.id}/{label} passes the hidden tests alone")
                if not should_pass and caught_by_visible(source) and s.try_answer(ex, source, visible_only=True).passed:
                    problems.append(f"{ex.id}/{label} passes the visible tests: the learner's own check "
                                    "misses the bug its section teaches")
    # Every answer gets the same verdict with the cells the short run skips left out.  The proof
    # already shows that every graded cell finds the same values for what the reference's answer and
    # test cell read: an answer that reads nothing else sees the same state.  The others run again,
    # in a kernel that ran the solution short.
    unproven = [t for t in tried if reads_beyond_reference(s.solution, t[0], t[2])]
    if unproven and not nothing:
        with NotebookSession(assignment, notebook) as short:
            skipped = short.run_short(plan)
            short.references = s.references
            for ex, label, source, passed in unproven:
                if short.try_answer(ex, source).passed != passed:
                    before = [i for i in skipped if i < ex.test_cell]
                    problems.append(f"{ex.id}/{label} {'passes' if not passed else 'fails'} in the short run and "
                                    f"{'passes' if passed else 'fails'} in full; cells skipped before its test "
                                    f"cell ({ex.test_cell}): {before}")
    assert not problems, "\n".join(problems)

