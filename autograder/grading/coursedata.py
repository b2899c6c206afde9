"""Each notebook's course data, loaded once per process and handed to whoever grades it.

A grading run reads a notebook's solution, builds its pristine release and lists its exercises once, in
the process that plans the run (:meth:`NotebookData.loaded`).  A job sent to a worker process or a Slurm
task carries a reference to it, never the notebooks: the worker loads the notebook once, the first time
a job names it, and checks that it is the same solution (:attr:`NotebookData.solution_sha`).

A notebook with per-student variants (:mod:`autograder.values.variants`) has one :class:`NotebookData`
per variant (:meth:`NotebookData.for_student`): its solution and release rendered for that variant, its
own :attr:`~NotebookData.solution_sha` (so its own reference and cached results) and its own
:attr:`~NotebookData.key`.  Everything downstream grades it as it grades any notebook.
"""

from __future__ import annotations

import copy
import functools
import json
from dataclasses import dataclass, field, replace
from pathlib import Path

import nbformat

from autograder.values import course, learner_view, nbfmt, released, support, variants
from autograder.values.digest import sha
from autograder.values.files import stamp as file_stamp


@dataclass
class NotebookData:
    assignment: course.Assignment
    name: str
    solution: nbformat.NotebookNode  # the instructor's notebook, hidden tests included
    release: nbformat.NotebookNode  # what learners get, rebuilt from the solution (never read from notebooks/)
    exercises: list[course.Exercise]
    solution_sha: str  # what of the solution decides a grade (:func:`decisive`) and the support files it lists
    support_files: tuple[str, ...] = ()  # what ships beside the notebook (autograder.values.support), nothing else
    markers: course.Markers = course.Markers()  # the course's solution and hidden-test delimiters
    variant: dict = field(default_factory=dict)  # the parameters this copy is rendered for ({}: as written)
    _variants: dict = field(default_factory=dict, repr=False, compare=False)  # rendered copies, by tag

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
                   sha(decisive(solution) + support.digest(assignment.solution_dir, listed).encode()), listed, marks)

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
        return (_shared, (str(self.root), self.assignment.name, self.name, self.solution_sha, self.variant))

    @property
    def key(self) -> tuple[str, str, str]:
        """What names this copy among a run's: the assignment, the notebook and the variant's tag."""
        return (self.assignment.name, self.name, variants.tag(self.variant))

    @functools.cached_property
    def parameters(self) -> dict[str, object]:
        """Each variant parameter with the value this copy binds (the default's as written): what the hidden
        tests are armed with and what a learner's messages may show."""
        return variants.bound(self.release)

    @property
    def has_variants(self) -> bool:
        return bool(variants.params(self.solution))

    @property
    def where(self) -> str:
        """How a run names this copy to the instructor: ``ASSIGNMENT/NOTEBOOK``, with its variant where the notebook
        has variants (the default, or the values this copy binds), so that one variant's lines tell from another's."""
        name = f"{self.assignment.name}/{self.name}"
        if not self.variant:
            return f"{name} (default variant)" if self.has_variants else name
        values = ", ".join(f"{k}={v!r}" for k, v in sorted(self.variant.items()))
        return f"{name} (variant {values if len(values) <= 100 else values[:99] + '…'})"

    def for_variant(self, values: dict) -> "NotebookData":
        """This notebook rendered for ``values`` (itself for the default variant), made once per process."""
        if not values or values == variants.default(self.solution) or values == self.variant:
            return self
        t = variants.tag(values)
        held = self._variants.get(t)
        if held is None:
            held = self._variants[t] = replace(
                self, solution=variants.render(self.solution, values),
                release=variants.plant(variants.render(self.release, values), self.solution, values, self.markers),
                solution_sha=sha(f"{self.solution_sha}/variant/{t}"), variant=dict(values), _variants={})
        return held

    def for_student(self, student: str, secret: bytes) -> "NotebookData":
        """The copy a student is graded on: their variant, drawn from their id and the assignment's secret."""
        if not self.has_variants:
            return self
        return self.for_variant(variants.draw(self.solution, secret, self.assignment.name, self.name, student))

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

    def released_cells(self) -> dict[str, list[tuple[str, str]]]:
        """Every version of this notebook's graded and locked cells that a release of the course handed out,
        read afresh from the course's record (:mod:`autograder.values.released`; {} where none is kept)."""
        return released.read(self.root, self.assignment.name, self.name)

    def visible_tests(self) -> dict[str, str]:
        """Each exercise's test cell as learners have it (visible asserts only)."""
        return {course.exercise_of(c): c.source for c in self.release.cells
                if course.is_tests(c) and course.exercise_of(c)}


_LOADED: dict[tuple[str, str, str], tuple[object, NotebookData]] = {}


def decisive(solution: nbformat.NotebookNode) -> bytes:
    """What of a solution notebook may decide a grade: every cell's kind, place and metadata, the text of each
    code cell and of each cell nbgrader knows (a graded or locked Markdown cell), and the notebook's metadata.
    The prose of the other Markdown cells runs nowhere and is judged by nothing, so a typo fixed there
    regrades no one; a cell added or removed moves the others, and does."""
    return json.dumps([[c.cell_type, c.source if c.cell_type == "code" or course.nbgrader_meta(c) else "",
                        c.get("metadata", {})] for c in solution.cells] + [solution.metadata],
                      sort_keys=True, default=str).encode()


def _shared(root: str, assignment: str, name: str, solution_sha: str, variant: dict | None = None) -> NotebookData:
    """The data a pickled :class:`NotebookData` stands for, in this process: loaded once, and the same solution."""
    data = NotebookData.loaded(course.Assignment(assignment, Path(root)), name).for_variant(variant or {})
    if data.solution_sha != solution_sha:
        raise RuntimeError(f"the solution of {assignment}/{name} or a file it lists changed while it was being "
                           "graded: grade again")
    return data
