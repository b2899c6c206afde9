"""Build the sample submissions in ``examples/submissions/`` (nbgrader's submitted/ layout).

For every assignment, four learners:

* ``alice`` — complete: every answer is a correct variant written differently from the reference;
* ``bob`` — partial: the first half of the exercises answered correctly, the rest untouched;
* ``carol`` — a typical bug: all correct except the last exercise, which holds a classic wrong answer;
* ``dave`` — crashes: the first exercise correct, then an answer cell that kills the kernel
  (``os._exit``), so everything after it cannot run.

``examples/expected.json`` records the score each deserves; ``tests/system/test_demo.py``
grades the samples and compares.  Run ``python examples/build.py`` after changing
a notebook or its answer variants.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder.values import course, nbfmt  # noqa: E402

OUT = ROOT / "examples" / "submissions"
ANSWERS = ROOT / "tests" / "answers"
TIMESTAMP = "2026-11-20 12:00:00.000000 UTC"
CRASH = 'import os\nos._exit(1)  # the kernel dies here: nothing after this cell can run\n'


def variant(notebook: str, ex: course.Exercise, kind: str) -> str | None:
    files = sorted((ANSWERS / notebook / ex.id).glob(f"{kind}_*.py"))
    return files[0].read_text() if files else None


def build() -> dict:
    expected: dict = {}
    for a in course.assignments(ROOT):
        for name in a.notebooks():
            release = course.read(a.release(name))
            solution = course.read(a.solution(name))
            exs = course.exercises(solution)

            def reference(ex):
                return solution.cells[ex.solution_cells[0]].source

            plans: dict[str, dict[str, str]] = {}
            plans["alice"] = {ex.id: variant(name, ex, "correct") or reference(ex) for ex in exs}
            half = max(1, len(exs) // 2)
            plans["bob"] = {ex.id: plans["alice"][ex.id] for ex in exs[:half]}
            # the last exercise with a classic wrong answer: later exercises may build on earlier ones
            buggy = next((ex for ex in reversed(exs) if variant(name, ex, "wrong")), exs[-1])
            plans["carol"] = dict(plans["alice"])
            plans["carol"][buggy.id] = variant(name, buggy, "wrong") or "raise ValueError('bug')\n"
            plans["dave"] = {exs[0].id: plans["alice"][exs[0].id]}
            if len(exs) > 1:
                plans["dave"][exs[1].id] = CRASH
            scores = {
                "alice": sum(e.points for e in exs),
                "bob": sum(e.points for e in exs[:half]),
                "carol": sum(e.points for e in exs if e.id != buggy.id),
                "dave": exs[0].points,
            }
            for student, answers in plans.items():
                nb = nbformat.from_dict(json.loads(json.dumps(release)))
                for cell in nb.cells:
                    ex = course.exercise_of(cell)
                    if ex in answers and course.is_solution(cell):
                        cell.source = answers[ex]
                dest = OUT / student / a.name
                dest.mkdir(parents=True, exist_ok=True)
                (dest / f"{name}.ipynb").write_text(nbfmt.dumps(nb))
                (dest / "timestamp.txt").write_text(TIMESTAMP + "\n")
                expected.setdefault(a.name, {}).setdefault(student, {})[name] = scores[student]
    (ROOT / "examples" / "expected.json").write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")
    return expected


if __name__ == "__main__":
    print(json.dumps(build(), indent=1))
