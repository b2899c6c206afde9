"""Each notebook's course data, loaded once per process and handed to whoever grades it.

A grading run reads a notebook's solution, builds its pristine release and lists its exercises once, in
the process that plans the run (:meth:`NotebookData.loaded`).  A job sent to a worker process or a Slurm
task carries a reference to it, never the notebooks: the worker loads the notebook once, the first time
a job names it, and checks that it is the same solution (:attr:`NotebookData.solution_sha`).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path

import nbformat

from autograder.values import course, learner_view, nbfmt, support
from autograder.values.digest import sha
from autograder.values.files import stamp as file_stamp


@dataclass
class NotebookData:
    assignment: course.Assignment
    name: str
    solution: nbformat.NotebookNode  # the instructor's notebook, hidden tests included
    release: nbformat.NotebookNode  # what learners get, rebuilt from the solution (never read from notebooks/)
    exercises: list[course.Exercise]
    solution_sha: str  # the solution notebook and the support files it lists: what the tests and reference are
    support_files: tuple[str, ...] = ()  # what ships beside the notebook (autograder.values.support), nothing else
    markers: course.Markers = course.Markers()  # the course's solution and hidden-test delimiters

    @classmethod
    def load(cls, assignment: course.Assignment, name: str) -> "NotebookData":
        """Read a notebook's source once.  In a student pack the source is itself a release (no
        solution region, no hidden test): it is then its own pristine release."""
        raw = assignment.solution(name).read_bytes()
        solution = nbformat.reads(raw.decode("utf-8"), as_version=4)
        marks = course.markers(assignment.root)
        if any(marks.is_secret(c.source) for c in solution.cells):
            learner = learner_view.pristine_release(solution, assignment.root)
        else:
            learner = nbfmt.normalize(nbformat.from_dict(copy.deepcopy(solution)))
        listed = tuple(support.listed(assignment.solution_dir))
        return cls(assignment, name, solution, learner, course.exercises(solution),
                   sha(raw + support.digest(assignment.solution_dir, listed).encode()), listed, marks)

    @classmethod
    def loaded(cls, assignment: course.Assignment, name: str) -> "NotebookData":
        """The notebook's data, loaded once per process and shared by every caller in it (loaded again
        when its solution file changes)."""
        stamp = file_stamp(assignment.solution(name))  # None: no such notebook, and load says so
        key = (str(Path(assignment.root).resolve()), assignment.name, name)
        held = _LOADED.get(key)
        if held is None or held[0] != stamp or stamp is None:
            held = _LOADED[key] = (stamp, cls.load(assignment, name))
        return held[1]

    def __reduce__(self):
        """Pickled as a reference to the course's notebook, checked by its digest at the other end."""
        return (_shared, (str(self.root), self.assignment.name, self.name, self.solution_sha))

    @property
    def has_hidden_tests(self) -> bool:
        return any(self.markers.hides_tests(c.source) for c in self.solution.cells)

    @property
    def root(self) -> Path:
        return Path(self.assignment.root)

    @property
    def support_dir(self) -> Path:
        """The folder that holds :attr:`support_files` (helper modules, data)."""
        return self.assignment.solution_dir

    def visible_tests(self) -> dict[str, str]:
        """Each exercise's test cell as learners have it (visible asserts only)."""
        return {course.exercise_of(c): c.source for c in self.release.cells
                if course.is_tests(c) and course.exercise_of(c)}


_LOADED: dict[tuple[str, str, str], tuple[object, NotebookData]] = {}


def _shared(root: str, assignment: str, name: str, solution_sha: str) -> NotebookData:
    """The data a pickled :class:`NotebookData` stands for, in this process: loaded once, and the same solution."""
    data = NotebookData.loaded(course.Assignment(assignment, Path(root)), name)
    if data.solution_sha != solution_sha:
        raise RuntimeError(f"the solution of {assignment}/{name} or a file it lists changed while it was being "
                           "graded: grade again")
    return data
