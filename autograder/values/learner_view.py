"""What a learner sees of a solution notebook, made by nbgrader's own code: the pristine release a
submission is compared with, and the visible part of a test cell.

Every way of removing hidden tests or solutions goes through nbgrader's preprocessors
(``ClearSolutions``, ``ClearHiddenTests``) with the course's configuration, so there is one rule for
what learners get: ``generate_assignment`` (:mod:`autograder.adapters.generate`) applies the same ones,
``ClearSolutions`` in the form that also hands out planted answer cells (:func:`generate_steps`).
"""

from __future__ import annotations

import copy
import functools
from pathlib import Path

import nbformat

from autograder.values import course, nbfmt, released, variants
from autograder.values.messages import STUB_ERROR, STUB_MESSAGE

# what every answer cell holds as released (nbgrader_config.py's ClearSolutions.code_stub)
CODE_STUB = f'# YOUR CODE HERE\nraise {STUB_ERROR}("{STUB_MESSAGE}")'


def pristine_release(solution: nbformat.NotebookNode, root: Path) -> nbformat.NotebookNode:
    """The learner notebook as ``nbgrader generate_assignment`` makes it from ``solution`` (sources and
    grading metadata, without checksums), built in memory with nbgrader's own preprocessors.

    Grading compares with this, never with a file in ``notebooks/``: learners edit their copy there
    in place, and an edited copy must not become the template it is judged against.
    """
    from nbgrader.preprocessors import ClearHiddenTests

    cfg = course.config(root)
    nb = nbformat.from_dict(copy.deepcopy(solution))
    nb, resources = planting_clear_solutions()(config=cfg).preprocess(nb, {})
    nb, _ = ClearHiddenTests(config=cfg).preprocess(nb, resources)
    return nbfmt.normalize(nb)


@functools.cache
def planting_clear_solutions():
    """nbgrader's ``ClearSolutions`` that hands out a planted answer cell (:mod:`autograder.values.variants`)
    with the default variant's bug instead of the stub; every other cell as nbgrader clears it.  The
    course's ``generate_assignment`` runs it in ``ClearSolutions``' place (:func:`generate_steps`)."""
    from nbgrader.preprocessors import ClearSolutions  # (imported on first use: nbgrader takes a second)

    class PlantingClearSolutions(ClearSolutions):
        def preprocess(self, nb, resources):
            solution = nbformat.from_dict(copy.deepcopy(nb))
            handed_out = {i: c.source for i, c in enumerate(nb.cells) if variants.is_planted(c)}
            nb, resources = super().preprocess(nb, resources)
            for i, source in handed_out.items():  # a release made from a release (a student pack) keeps its bug
                nb.cells[i].source = source
            marks = course.Markers(self.begin_solution_delimeter, self.end_solution_delimeter)
            return variants.plant(nb, solution, {}, marks), resources

    return PlantingClearSolutions


def generate_steps() -> list:
    """nbgrader's ``generate_assignment`` steps with :func:`planting_clear_solutions` in ``ClearSolutions``'
    place, and last the step that keeps the released cells (:func:`autograder.values.released.recording_step`:
    every release of a notebook passes through here), for ``nbgrader_config.py``
    (``c.GenerateAssignment.preprocessors``)."""
    from nbgrader.converters import GenerateAssignment
    from nbgrader.preprocessors import ClearSolutions

    default = GenerateAssignment.class_traits()["preprocessors"].default()
    return [planting_clear_solutions() if step is ClearSolutions else step for step in default] + \
        [released.recording_step()]


def visible_source(cell) -> str:
    """The source of a test cell as learners get it: nbgrader's ``ClearHiddenTests`` applied to it."""
    from nbgrader.preprocessors import ClearHiddenTests

    one = nbformat.v4.new_notebook(cells=[nbformat.from_dict(copy.deepcopy(dict(cell)))])
    one, _ = ClearHiddenTests(enforce_metadata=False).preprocess(one, {})
    return one.cells[0].source
