"""nbgrader's exchange for a class whose accounts may be hostile: each student's own copy, their own submission,
their own feedback.

nbgrader's exchange releases one copy of an assignment for the whole class, and the fetch runs as the
student, who must never hold the course's secret.  So the instructor's side draws the variants, and the
student's side only picks its own:

* :class:`VariantRelease` is nbgrader's ``ExchangeReleaseAssignment`` that, after releasing, writes each
  student's copy of every notebook with variant cells (:mod:`autograder.values.variants`) under
  ``outbound/ASSIGNMENT/.variants/STUDENT/``, for every student of the gradebook, readable by that student
  alone (:func:`autograder.adapters.exchange_folders.for_student`): a classmate's copy would point at one's
  own planted bugs, and in the debugging exam at their fixes.  The folder is written even when no student
  is known yet, so that a fetch never falls back to the default variant silently.
* :class:`VariantFetch` is nbgrader's ``ExchangeFetchAssignment`` that copies the release without that
  folder, then puts the student's own copy in place of each notebook it fetched just now (a notebook the
  student already holds is never touched, as nbgrader's own fetch of missing files does).  A student the
  release has no copy for gets one line saying so, and nothing is fetched.
* :class:`CheckedSubmit` is nbgrader's ``ExchangeSubmit`` whose submission folder is its student's alone
  (nbgrader makes it ``0777``, so that anyone who learns its name can refill it).
* :class:`CheckedReleaseFeedback` is nbgrader's ``ExchangeReleaseFeedback`` that releases each page to its
  student alone, releases to every student it can, and names, in one line each, those it cannot (a student
  collected from an LMS download has no exchange submission to tie a page to).

Every instructor-side class first makes and checks the course's folders of the exchange
(:func:`autograder.adapters.exchange_folders.secure`), and every student-side class refuses folders it should
not trust (:func:`autograder.adapters.exchange_folders.student_problem`).  All are set in
``nbgrader_config.py`` (``c.ExchangeFactory``) and, for a class server, in every learner's configuration.
The copies are drawn again from the student id by ``grade``; a notebook that holds another student's variant
is graded on the student's own, and the result says so.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
from pathlib import Path

import nbformat
from nbgrader.exchange.default.fetch_assignment import ExchangeFetchAssignment
from nbgrader.exchange.default.release_assignment import ExchangeReleaseAssignment
from nbgrader.exchange.default.release_feedback import ExchangeReleaseFeedback
from nbgrader.exchange.default.submit import ExchangeSubmit
from nbgrader.utils import get_username, notebook_hash

from autograder.adapters.exchange_folders import (SUBMISSION_MODE, VARIANTS, ExchangeNotTrusted, for_student,
                                                  secure, student_problem)
from autograder.values import variants


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


def write_variants(release_dir: Path, root: Path, assignment: str, students: list[str]) -> tuple[int, list[str]]:
    """Each student's copy of each notebook of ``release_dir`` that has variant cells, under ``.variants/``,
    readable by that student alone where the machine can say who they are; how many notebooks have variant
    cells (0: nothing written), and the students whose copies every account can read."""
    notebooks = _variant_notebooks(release_dir, root, assignment)
    if not notebooks:
        return 0, []
    base = release_dir / VARIANTS
    base.mkdir(exist_ok=True)
    os.chmod(base, 0o711)  # nobody lists whose copies are there
    # a name no folder can carry is left out; nbgrader's exchange refuses such an id too
    named = [s for s in students if s and "/" not in s and not s.startswith(".")]
    for student, name, nb in _copies(notebooks, root, assignment, named):
        (base / student).mkdir(exist_ok=True)
        nbformat.write(nb, base / student / name)
    open_to_all = []
    for student in named:
        if not for_student(base / student, student):  # no account of their own here: every account reads it
            open_to_all.append(student)
            for p in [base / student, *(base / student).iterdir()]:
                os.chmod(p, 0o755 if p.is_dir() else 0o644)
    return len(notebooks), open_to_all


def make_own(release_dir: Path, root: Path, assignment: str, student: str) -> None:
    """Make the release in ``release_dir`` ``student``'s own: each variant notebook replaced by their copy."""
    for _, name, nb in _copies(_variant_notebooks(release_dir, root, assignment), root, assignment, [student]):
        nbformat.write(nb, release_dir / name)


def secure_course(app) -> None:
    """Make and check the course's folders of the exchange before an instructor-side ``app`` touches them
    (:func:`autograder.adapters.exchange_folders.secure`): each change said in the log, a folder that is not
    the instructor's refused in one line."""
    try:
        said = secure(Path(app.root), app.coursedir.course_id)
    except ExchangeNotTrusted as exc:
        for line in exc.said:
            app.log.warning(line)
        app.fail(str(exc))
    for line in said:
        app.log.warning(line)


def refuse_untrusted(app) -> None:
    """A student-side ``app`` stops, in one line, before it trusts course folders it should not."""
    problem = student_problem(Path(app.root), app.coursedir.course_id)
    if problem:
        app.fail(problem)


class VariantRelease(ExchangeReleaseAssignment):
    """nbgrader's release to the exchange, with each student's variants beside it (see the module)."""

    def ensure_root(self):
        """The exchange's root is :func:`secure_course`'s: nbgrader's own check would make it ``0777`` again
        without the sticky bit, so that any account could move the course's folder away."""

    def init_dest(self):
        secure_course(self)
        super().init_dest()

    def copy_files(self):
        super().copy_files()
        from autograder.values import course

        root = Path(self.coursedir.root)
        students = sorted(course.gradebook_students(course.gradebook_url(root)))
        made, open_to_all = write_variants(Path(self.dest_path), root, self.coursedir.assignment_id, students)
        if made:
            self.log.info("Per-student variants of %d notebook(s) for %d student(s) of the gradebook", made, len(students))
            if not students:
                self.log.warning("No student is in the gradebook: nobody can fetch %s until you add the roster "
                                 "and release again with --force", self.coursedir.assignment_id)
            if open_to_all:
                self.log.warning("The copies of %d student(s) are readable by every account (release as root, with "
                                 "an account of their own for each student, to make each copy its student's alone): "
                                 "%s", len(open_to_all), ", ".join(open_to_all[:10]) + (" ..." if len(open_to_all) > 10 else ""))


class VariantFetch(ExchangeFetchAssignment):
    """nbgrader's fetch, which gives the student their own variant (see the module)."""

    def student(self) -> str:
        """Who fetches: the student id given to nbgrader, else the hub's user name, else the account's
        (nbgrader's own rule for submissions, which takes the hub's name only for a shared account)."""
        sid = self.coursedir.student_id
        return sid if sid and sid != "*" else os.environ.get("JUPYTERHUB_USER") or get_username()

    def init_src(self):
        refuse_untrusted(self)
        super().init_src()

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


class CheckedSubmit(ExchangeSubmit):
    """nbgrader's submit, whose submission folder is its student's alone (see the module)."""

    def init_dest(self):
        refuse_untrusted(self)
        super().init_dest()

    def copy_files(self):
        super().copy_files()
        dest = os.path.join(self.inbound_path, self.assignment_filename)
        # the collector is root on a class server, who reads it all the same; an instructor's own account
        # needs to read it, and nobody who does not know its name can (inbound/ is not listable)
        os.chmod(dest, SUBMISSION_MODE if os.stat(self.inbound_path).st_uid == 0 else 0o755)


class CheckedReleaseFeedback(ExchangeReleaseFeedback):
    """nbgrader's feedback release, to each student alone, to everyone it can (see the module)."""

    def init_dest(self):
        secure_course(self)
        super().init_dest()

    def copy_files(self):
        exclude = set(self.coursedir.student_id_exclude.split(",")) if self.coursedir.student_id_exclude else set()
        pattern = re.escape(os.path.sep).join([
            self.coursedir.format_path(self.coursedir.feedback_directory, "(?P<student_id>.*)",
                                       self.coursedir.assignment_id, escape=True), "(?P<notebook_id>.*).html"])
        released, missed, open_to_all = 0, {}, set()
        for html in sorted(glob.glob(os.path.join(self.src_path, "*.html"))):
            m = re.match(pattern, html)
            if m is None or m["student_id"] in exclude:
                continue
            student, notebook = m["student_id"], m["notebook_id"]
            folder = os.path.dirname(html)
            try:
                with open(os.path.join(folder, "submission_secret.txt")) as fh:
                    secret = fh.read()
            except OSError:  # no exchange submission behind this page (an LMS download, a sample)
                missed[student] = ("it was not submitted through the exchange (no submission_secret.txt): hand "
                                   f"them {folder} yourself")
                continue
            dest = os.path.join(self.dest_path, f"{notebook_hash(secret=secret, notebook_id=notebook)}.html")
            tmp = dest[:-len(".html")] + "-tmp.html"
            shutil.copy(html, tmp)
            if not for_student(Path(tmp), student):
                os.chmod(tmp, 0o644)  # found by its unguessable name alone, as nbgrader releases it
                open_to_all.add(student)
            os.replace(tmp, dest)
            released += 1
            self.log.info("Releasing feedback for student '%s' on assignment '%s/%s/%s'", student,
                          self.coursedir.course_id, self.coursedir.assignment_id, notebook)
        self.log.info("Released %d feedback page(s) of %s", released, self.coursedir.assignment_id)
        for student, why in sorted(missed.items()):
            self.log.warning("No feedback released to %s: %s", student, why)
        if open_to_all:
            self.log.warning("The feedback of %d student(s) is readable by any account that learns its name (no "
                             "account of their own here): %s", len(open_to_all), ", ".join(sorted(open_to_all)))
