"""Each notebook's course data, loaded once and handed to whoever grades it.

A grading run reads a notebook's solution, builds its pristine release and lists its
exercises once, in the process that plans the run; workers (local or on Slurm) receive
this value with each job instead of re-reading and rebuilding them per submission.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path

import nbformat

from . import course, nbfmt, release
from .submission import sha


def support_digest(folder: Path) -> str:
    """A digest of the files that ship beside a source notebook (helper modules, data): the hidden tests
    and the reference may read them, so a change to one is a change of the tests."""
    parts = []
    for p in sorted(Path(folder).rglob("*")):
        rel = p.relative_to(folder)
        if p.suffix == ".ipynb" or not p.is_file() or p.is_symlink() or any(
                part.startswith(".") or part == "__pycache__" for part in rel.parts):
            continue
        parts.append(f"{rel.as_posix()}:{sha(p.read_bytes())}")
    return sha("\n".join(parts))


@dataclass
class NotebookData:
    assignment: course.Assignment
    name: str
    solution: nbformat.NotebookNode  # the instructor's notebook, hidden tests included
    release: nbformat.NotebookNode  # what learners get, rebuilt from the solution (never read from notebooks/)
    exercises: list[course.Exercise]
    solution_sha: str  # the solution notebook and the support files beside it: what the tests and reference are

    @classmethod
    def load(cls, assignment: course.Assignment, name: str) -> "NotebookData":
        """Read a notebook's source once.  In a student pack the source is itself a release (no
        solution region, no hidden test): it is then its own pristine release."""
        raw = assignment.solution(name).read_bytes()
        solution = nbformat.reads(raw.decode("utf-8"), as_version=4)
        if any("BEGIN SOLUTION" in c.source or course.HIDDEN_BEGIN in c.source for c in solution.cells):
            learner = release.pristine_release(solution, assignment.root)
        else:
            learner = nbfmt.normalize(nbformat.from_dict(copy.deepcopy(solution)))
        return cls(assignment, name, solution, learner, course.exercises(solution),
                   sha(raw + support_digest(assignment.solution_dir).encode()))

    @property
    def has_hidden_tests(self) -> bool:
        return any(course.HIDDEN_BEGIN in c.source for c in self.solution.cells)

    @property
    def root(self) -> Path:
        return Path(self.assignment.root)

    @property
    def support_dir(self) -> Path:
        """The folder whose other files ship beside the notebook (helper modules, data)."""
        return self.assignment.solution_dir

    def visible_tests(self) -> dict[str, str]:
        """Each exercise's test cell as learners have it (visible asserts only)."""
        return {course.exercise_of(c): c.source for c in self.release.cells
                if course.is_tests(c) and course.exercise_of(c)}
