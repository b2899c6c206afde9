"""What a learner sees of a solution notebook, made by nbgrader's own code: the pristine release a
submission is compared with, and the visible part of a test cell.

Every way of removing hidden tests or solutions goes through nbgrader's preprocessors
(``ClearSolutions``, ``ClearHiddenTests``) with the course's configuration, so there is one rule for
what learners get: ``generate_assignment`` (:mod:`autograder.adapters.generate`) applies the same ones.
"""

from __future__ import annotations

import copy
from pathlib import Path

import nbformat

from autograder.values import course, nbfmt


def pristine_release(solution: nbformat.NotebookNode, root: Path) -> nbformat.NotebookNode:
    """The learner notebook as ``nbgrader generate_assignment`` makes it from ``solution`` (sources and
    grading metadata, without checksums), built in memory with nbgrader's own preprocessors.

    Grading compares with this, never with a file in ``notebooks/``: learners edit their copy there
    in place, and an edited copy must not become the template it is judged against.
    """
    from nbgrader.preprocessors import ClearHiddenTests, ClearSolutions

    cfg = course.config(root)
    nb = nbformat.from_dict(copy.deepcopy(solution))
    nb, resources = ClearSolutions(config=cfg).preprocess(nb, {})
    nb, _ = ClearHiddenTests(config=cfg).preprocess(nb, resources)
    return nbfmt.normalize(nb)


def visible_source(cell) -> str:
    """The source of a test cell as learners get it: nbgrader's ``ClearHiddenTests`` applied to it."""
    from nbgrader.preprocessors import ClearHiddenTests

    one = nbformat.v4.new_notebook(cells=[nbformat.from_dict(copy.deepcopy(dict(cell)))])
    one, _ = ClearHiddenTests(enforce_metadata=False).preprocess(one, {})
    return one.cells[0].source
