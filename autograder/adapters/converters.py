"""The course's steps inside nbgrader's own writers, which clear a folder whole before they write into it.

nbgrader's ``generate_assignment`` (the formgrader's *Generate*) removes ``notebooks/ASSIGNMENT`` and its
``generate_feedback`` (*Generate Feedback*) removes ``feedback/STUDENT/ASSIGNMENT`` before writing them again.
Both folders hold what people keep: a learner's work beside the release, an instructor's page beside the
feedback.  The course's own commands write there by its rules: the release folder's
(:mod:`autograder.adapters.release_folder`) and the one for files written for people
(:func:`autograder.values.files.write_for_people`).  These steps make nbgrader's writers follow the same ones.

Each is a preprocessor that changes no notebook.  It does its work when nbgrader makes it, which is when a
converter starts, after it has found its notebooks and before it clears any folder (:meth:`_FolderStep.before`),
and after each folder is written, through the converter's ``post_convert_hook`` (:meth:`_FolderStep.after`,
chained before a hook configured there).  ``nbgrader_config.py`` adds them to the two converters' steps.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import List

from autograder.adapters import release_folder
from autograder.values.errors import UserError
from autograder.values.files import keep_if_theirs, kept_folder, kept_line, remember_written


class CourseStep(NbGraderPreprocessor):
    """An nbgrader step of the course's own, in a converter that exports HTML as well (nbgrader's
    ``generate_feedback``): nbconvert's HTML exporter configures ``NbConvertBase.display_data_priority`` for every
    step, nbgrader's base class redeclares the trait without ``config=True``, and traitlets then warns, in the
    instructor's log, that the option is not recognised.  Declared configurable here, as nbgrader's ``GetGrades``
    does (no course step reads it)."""

    display_data_priority = List(["text/html", "application/pdf", "text/latex", "image/svg+xml", "image/png",
                                  "image/jpeg", "text/plain"]).tag(config=True)


class _FolderStep(CourseStep):
    """What the two steps share: the converter's destination folders, work before nbgrader clears them and after
    it wrote each one."""

    converter_name = ""  # the nbgrader converter (nbgrader.converters) this step works in

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        import nbgrader.converters

        converter = getattr(self.parent, "parent", None)
        self._folders: dict[str, tuple[str, str, Path]] = {}  # source folder -> (assignment, student, destination)
        if not isinstance(converter, getattr(nbgrader.converters, self.converter_name)) or converter.coursedir is None:
            return
        self._converter, self._root = converter, Path(converter.coursedir.root)
        pattern = converter._format_source("(?P<assignment_id>.*)", "(?P<student_id>.*)", escape=True)
        for source in converter.assignments:
            m = re.match(pattern, source)
            if m is not None:  # (nbgrader stops on a folder that does not match, before it clears anything)
                dest = Path(os.path.normpath(converter._format_dest(m["assignment_id"], m["student_id"])))
                self._folders[os.path.normpath(source)] = (m["assignment_id"], m["student_id"], dest)
        try:
            self.before(list(self._folders.values()))
        except UserError as exc:
            converter.log.error(str(exc))
            raise nbgrader.converters.NbGraderException(str(exc)) from None
        configured = converter.post_convert_hook

        def after_then_configured(**kw):
            notebooks = kw.get("notebooks") or []
            found = self._folders.get(os.path.normpath(os.path.dirname(notebooks[0]))) if notebooks else None
            if found is not None:
                self.after(*found)
            if configured is not None:
                configured(**kw)

        converter.post_convert_hook = after_then_configured

    def before(self, folders: list[tuple[str, str, Path]]) -> None:
        raise NotImplementedError

    def after(self, assignment: str, student: str, dest: Path) -> None:
        raise NotImplementedError

    def preprocess(self, nb, resources):
        return nb, resources


class KeepLearnersWork(_FolderStep):
    """The last of the course's ``generate_assignment`` steps: each release folder is set aside before nbgrader
    clears it, and once nbgrader has written the fresh release, put back by the release folder's rule
    (:func:`autograder.adapters.release_folder.put_back`)."""

    converter_name = "GenerateAssignment"

    def before(self, folders):
        done = []
        try:
            for _, _, dest in folders:
                release_folder.bring_back(dest)  # what a Generate that stopped half-way set aside
                if dest.exists() or dest.is_symlink():
                    os.rename(dest, release_folder.set_aside_name(dest))
                    done.append(dest)
        except BaseException:  # why: nothing is cleared yet; every folder set aside so far goes back first
            for dest in done:
                release_folder.bring_back(dest)
            raise

    def after(self, assignment, student, dest):
        log = self._converter.log
        whole = self._converter.coursedir.notebook_id == "*"  # else nbgrader wrote some of the notebooks only
        try:
            for line in release_folder.put_back(dest, self._root, assignment, whole):
                log.warning(line)
        except Exception as exc:  # why: nbgrader logs a failed hook at INFO level, unseen: say where everything is
            held = release_folder.set_aside_name(dest)
            log.error(f"this Generate could not finish putting back what {dest} held before it ({exc}): that is in "
                      f"{held if held.exists() else dest}; `autograder release {assignment}` writes the release "
                      "again, keeping it")


class KeepPeoplesPages(_FolderStep):
    """A step of the course's ``generate_feedback``: before nbgrader clears a student's feedback folder, every file
    there that a command did not write last is kept aside where ``autograder feedback`` keeps one
    (:func:`autograder.values.files.keep_if_theirs`); after nbgrader wrote the folder, each of its files is
    recorded as written by a command (:func:`autograder.values.files.remember_written`), so that either writer
    replaces the other's pages without a copy."""

    converter_name = "GenerateFeedback"

    def before(self, folders):
        log = self._converter.log
        for _, _, dest in folders:
            for path in sorted(p for p in dest.rglob("*") if p.is_file() or p.is_symlink()) if dest.is_dir() else ():
                aside = keep_if_theirs(path, self._root, keep_in=kept_folder(self._root, path))
                if aside is not None:
                    log.warning(kept_line(path, aside))

    def after(self, assignment, student, dest):
        try:
            remember_written(self._root, [p for p in dest.rglob("*") if p.is_file() and not p.is_symlink()])
        except Exception as exc:  # why: nbgrader logs a failed hook at INFO level, unseen: said at ERROR level
            self._converter.log.error(f"the feedback written into {dest} could not be recorded as the course's ({exc}): "
                                      "the next `autograder feedback` keeps a copy of each page it replaces there")
