"""nbgrader's autograde restores hidden tests without warning that an honest submission changed them.

``nbgrader generate_assignment`` records each test cell in the gradebook (source and checksum)
*before* ``ClearHiddenTests`` removes the hidden block, and writes the released cell's checksum
after.  ``nbgrader autograde``'s ``OverwriteCells`` then finds every test cell with hidden tests
"changed" (its checksum is the gradebook's only when the hidden block is there), logs
*Attribute 'checksum' ... has changed!* for it in every honest submission, and restores the
recorded source: that restoring is how stock nbgrader runs hidden tests at all.  The checksums
cannot be made to agree without dropping the hidden tests from the gradebook.

:class:`RestoreHiddenTests` is nbgrader's ``OverwriteCells`` that first gives a test cell its
recorded source when the cell holds exactly the visible part of it (what the release handed out,
as nbgrader's own ``ClearHiddenTests`` makes it); nbgrader's checks then run unchanged, so a test
cell a learner did edit is still reported and restored as before.  A variant cell that holds other values
than the gradebook's (each student's own, :mod:`autograder.values.variants`) and nothing else changed is
kept as it is, without the warning: ``grade`` draws the student's variant again and notes a notebook
that holds another.  :func:`stock_sanitize_steps` is
nbgrader's sanitize pipeline with it in place of ``OverwriteCells``.

Those steps serve nbgrader's own grading alone (``--GradeInSandbox.trusted_input=True``).  Grading in the
sandbox, the notebook nbgrader hands over is the submission as it read it: the grade's own steps read it
without trust and restore the instructor's cells by one rule, logging each edit
(:mod:`autograder.grading.steps`), as ``grade`` does with the file.  :func:`sanitize_steps`, for
``nbgrader_config.py`` (``c.Autograde.sanitize_preprocessors``), is one step, :class:`SanitizeForStockGrading`,
that runs nbgrader's sanitize steps where nbgrader grades and hands the notebook on untouched where the sandbox
does.
"""

from __future__ import annotations

import nbformat
from nbgrader.api import MissingEntry
from nbgrader.preprocessors import NbGraderPreprocessor, OverwriteCells

from autograder.values import course, learner_view, variants


def _visible(recorded_source: str, cell) -> str:
    one = nbformat.from_dict({"cell_type": cell.cell_type, "metadata": {"nbgrader": course.nbgrader_meta(cell)},
                              "source": recorded_source, **({"outputs": [], "execution_count": None}
                                                             if cell.cell_type == "code" else {})})
    return learner_view.visible_source(one)


class RestoreHiddenTests(OverwriteCells):
    """``OverwriteCells`` that restores an unchanged test cell's hidden tests quietly (see the module)."""

    def _recorded(self, gid: str):
        """The gradebook's locked source cell ``gid`` (None where there is none: nbgrader's own step reports it)."""
        try:
            recorded = self.gradebook.find_source_cell(gid, self.notebook_id, self.assignment_id)
        except MissingEntry:
            return None
        return recorded if recorded.locked else None

    def preprocess_cell(self, cell, resources, cell_index):
        gid = course.grade_id(cell)
        variant = bool(gid and variants.VARIANT_ID_RE.match(gid))
        recorded = self._recorded(gid) if gid and (variant or course.is_tests(cell)) else None
        if recorded is not None and variant and variants.same_but_values(cell.source, recorded.source):
            return cell, resources  # the student's own variant: kept (grade draws it again and checks it)
        if (recorded is not None and not variant and recorded.cell_type == cell.cell_type
                and cell.source != recorded.source
                and cell.source.rstrip("\n") == _visible(recorded.source, cell).rstrip("\n")):
            cell.source = recorded.source
            self.log.debug("restored the hidden tests of cell %s", gid)
        return super().preprocess_cell(cell, resources, cell_index)


def stock_sanitize_steps() -> list:
    """nbgrader's autograde sanitize steps, with :class:`RestoreHiddenTests` where ``OverwriteCells`` was."""
    from nbgrader.converters import Autograde

    default = Autograde.class_traits()["sanitize_preprocessors"].default()
    return [RestoreHiddenTests if step is OverwriteCells else step for step in default]


class SanitizeForStockGrading(NbGraderPreprocessor):
    """nbgrader's sanitize steps (:func:`stock_sanitize_steps`) where nbgrader's own steps grade
    (``GradeInSandbox.trusted_input``); where the sandbox grades, the submission as nbgrader read it, untouched."""

    def preprocess(self, nb, resources):
        from autograder.adapters.autograde import GradeInSandbox

        if not GradeInSandbox(parent=self.parent).trusted_input:
            return nb, resources
        for step in stock_sanitize_steps():
            nb, resources = step(parent=self.parent)(nb, resources)
        return nb, resources


def sanitize_steps() -> list:
    """``c.Autograde.sanitize_preprocessors`` for this course: :class:`SanitizeForStockGrading` alone."""
    return [SanitizeForStockGrading]
