"""Per-student variants through nbgrader's exchange: fixed at release, handed over when each student fetches.

nbgrader's exchange releases one copy of an assignment for the whole class, and the fetch runs as the
student, who must never hold the course's secret.  So the instructor's side draws the variants, and the
student's side only picks its own:

* :class:`VariantRelease` is nbgrader's ``ExchangeReleaseAssignment`` that, after releasing, writes each
  student's copy of every notebook with variant cells (:mod:`autograder.values.variants`) under
  ``outbound/ASSIGNMENT/.variants/STUDENT/``, for every student of the gradebook.  The folder is written
  even when no student is known yet, so that a fetch never falls back to the default variant silently.
* :class:`VariantFetch` is nbgrader's ``ExchangeFetchAssignment`` that copies the release without that
  folder, then puts the student's own copy in place of each notebook it fetched just now (a notebook the
  student already holds is never touched, as nbgrader's own fetch of missing files does).  A student the
  release has no copy for gets one line saying so, and nothing is fetched.

Both are set in ``nbgrader_config.py`` (``c.ExchangeFactory``) and, for a class server, in every learner's
configuration.  The copies are drawn again from the student id by ``grade``; a notebook that holds
another student's variant is graded on the student's own, and the result says so.  Every student of the
exchange can read the ``.variants`` folder, as they can read the release itself: a variant is not a
secret, only its owner's.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import nbformat
from nbgrader.exchange.default.fetch_assignment import ExchangeFetchAssignment
from nbgrader.exchange.default.release_assignment import ExchangeReleaseAssignment
from nbgrader.utils import get_username

from autograder.values import variants

VARIANTS = ".variants"


def _variant_notebooks(release_dir: Path, root: Path, assignment: str) -> list[tuple[Path, object, object]]:
    """The notebooks of ``release_dir`` with per-student variants: (path, released notebook, solution).  The
    bugs a planted answer cell may carry are listed in the solution alone, never in a release."""
    from autograder.values import course

    found = []
    for path in sorted(release_dir.glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        source = course.Assignment(assignment, root).solution(path.stem)
        solution = course.read(source) if source.is_file() else nb
        if variants.params(solution):
            found.append((path, nb, solution))
    return found


def _copies(notebooks: list, root: Path, assignment: str, students: list[str]):
    """Each student's copy of each of ``notebooks`` (:func:`_variant_notebooks`): (student, file name, notebook)."""
    from autograder.grading.seeds import variant_secret
    from autograder.values import course

    if not notebooks:
        return
    secret, marks = variant_secret(root, assignment), course.markers(root)
    for student in students:
        for path, nb, solution in notebooks:
            drawn = variants.draw(solution, secret, assignment, path.stem, student)
            yield student, path.name, variants.plant(variants.render(nb, drawn), solution, drawn, marks)


def write_variants(release_dir: Path, root: Path, assignment: str, students: list[str]) -> int:
    """Each student's copy of each notebook of ``release_dir`` that has variant cells, under ``.variants/``;
    how many notebooks have them (0: nothing written)."""
    notebooks = _variant_notebooks(release_dir, root, assignment)
    if not notebooks:
        return 0
    base = release_dir / VARIANTS
    base.mkdir(exist_ok=True)
    # a name no folder can carry is left out; nbgrader's exchange refuses such an id too
    named = [s for s in students if s and "/" not in s and not s.startswith(".")]
    for student, name, nb in _copies(notebooks, root, assignment, named):
        (base / student).mkdir(exist_ok=True)
        nbformat.write(nb, base / student / name)
    return len(notebooks)


def make_own(release_dir: Path, root: Path, assignment: str, student: str) -> None:
    """Make the release in ``release_dir`` ``student``'s own: each variant notebook replaced by their copy."""
    for _, name, nb in _copies(_variant_notebooks(release_dir, root, assignment), root, assignment, [student]):
        nbformat.write(nb, release_dir / name)


class VariantRelease(ExchangeReleaseAssignment):
    """nbgrader's release to the exchange, with each student's variants beside it (see the module)."""

    def copy_files(self):
        super().copy_files()
        from autograder.values import course

        root = Path(self.coursedir.root)
        students = sorted(course.gradebook_students(course.gradebook_url(root)))
        made = write_variants(Path(self.dest_path), root, self.coursedir.assignment_id, students)
        if made:
            self.set_perms(self.dest_path, fileperms=0o644, dirperms=0o755)
            self.log.info("Per-student variants of %d notebook(s) for %d student(s) of the gradebook", made, len(students))
            if not students:
                self.log.warning("No student is in the gradebook: nobody can fetch %s until you add the roster "
                                 "and release again with --force", self.coursedir.assignment_id)


class VariantFetch(ExchangeFetchAssignment):
    """nbgrader's fetch, which gives the student their own variant (see the module)."""

    def student(self) -> str:
        """Who fetches: the student id given to nbgrader, else the hub's user name, else the account's
        (nbgrader's own rule for submissions, which takes the hub's name only for a shared account)."""
        sid = self.coursedir.student_id
        return sid if sid and sid != "*" else os.environ.get("JUPYTERHUB_USER") or get_username()

    def copy_files(self):
        mine = Path(self.src_path) / VARIANTS / self.student()
        if mine.parent.is_dir() and not mine.is_dir():
            self.fail(f"No copy of {self.coursedir.assignment_id} was released for {mine.name}: ask your instructor "
                      "to add you to the course's roster and release it again.")
        before = set(Path(self.dest_path).rglob("*")) if os.path.isdir(self.dest_path) else set()
        super().copy_files()
        if mine.is_dir():
            for src in sorted(mine.glob("*.ipynb")):
                dest = Path(self.dest_path) / src.name
                if dest not in before:  # fetched just now: the student's own copy takes its place
                    shutil.copyfile(src, dest)

    def do_copy(self, src, dest):
        ignore = shutil.ignore_patterns(*self.coursedir.ignore, VARIANTS)
        if os.path.isdir(self.dest_path):
            self.copy_if_missing(src, dest, ignore=ignore)
        else:
            shutil.copytree(src, dest, ignore=ignore)
