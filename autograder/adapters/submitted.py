"""nbgrader's ``submitted/STUDENT/ASSIGNMENT/`` layout, as ``grade`` plans from it: which file of each
submission folder is each notebook (a renamed copy recognised by its cells, :func:`renamed_notebook`, as an LMS
download's is too), the submission times that
hold a notebook back, and the instructor's word for a time.

Read here once, for the plan; :mod:`autograder.adapters.recorder` reads each time again only where a
grade is recorded, since the policy and the time may change between two runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from autograder.adapters import late, times
from autograder.grading.store import ResultStore
from autograder.grading.steps.read import read_submission
from autograder.values import course
from autograder.values.errors import UserError


@dataclass
class Found:
    """One notebook of one student's submission folder, as planned for grading."""

    assignment: course.Assignment
    notebook: str
    student: str
    path: Path  # the file to grade (NOTEBOOK.ipynb, or the one renamed copy that carries its cells)
    notes: list[str] = field(default_factory=list)


def graded_ids_of(path: Path) -> set[str]:
    """The nbgrader grade ids a submitted notebook carries (read without trust; none when it does not read)."""
    submitted = read_submission(path)
    return set() if submitted.problem or submitted.nb is None else course.graded_ids(submitted.nb)


def notebook_ids(assignment: course.Assignment) -> dict[str, set[str]]:
    """Each notebook of ``assignment`` and the nbgrader grade ids of its cells, by which a renamed copy
    is recognised (:func:`renamed_notebook`)."""
    return {nb: course.graded_ids(course.read(assignment.solution(nb))) for nb in assignment.notebooks()}


def renamed_notebook(path: Path, names: dict[str, set[str]]) -> str | None:
    """The notebook of ``names`` (notebook -> grade ids, :func:`notebook_ids`) that a file not named after
    it is: the one whose cells it carries, and no other notebook's (``01_tensors (1).ipynb``,
    ``01_tensors-Copy1.ipynb``, another case).  None when it carries none, several, or does not read."""
    ids = graded_ids_of(path)
    carried = {nb for nb, nb_ids in names.items() if nb_ids & ids}
    return carried.pop() if len(carried) == 1 else None


def locate(folder: Path, names: dict[str, set[str]]) -> tuple[dict[str, tuple[Path, str]], list[str]]:
    """Which file of a submission folder to grade as each notebook, and what the folder holds besides.

    ``names`` maps each notebook of the assignment to its released grade ids.  A notebook is its own
    file name; failing that, the one notebook of the folder that carries its cells and no other
    notebook's (``01_tensors (1).ipynb``, ``01_tensors-Copy1.ipynb``, another case).  Returns
    {notebook: (path, note)} and one note per notebook file graded as nothing."""
    files = sorted(p for p in folder.glob("*.ipynb") if p.is_file() and not p.is_symlink())
    found: dict[str, tuple[Path, str]] = {}
    for nb in names:
        exact = folder / f"{nb}.ipynb"
        if exact in files:
            found[nb] = (exact, "")
    rest = [p for p in files if p not in {f for f, _ in found.values()}]
    carriers = {p: renamed_notebook(p, names) for p in rest}
    for nb in names:
        if nb in found:
            continue
        mine = [p for p, carried in carriers.items() if carried == nb]
        if len(mine) == 1:
            found[nb] = (mine[0], f"graded {mine[0].name} as {nb}.ipynb (renamed; recognised by its cells)")
        elif len(mine) > 1:
            found[nb] = (folder / f"{nb}.ipynb", f"{len(mine)} notebooks carry the cells of {nb}.ipynb "
                         f"({', '.join(p.name for p in mine)}): none graded; rename the right one {nb}.ipynb")
    used = {f for f, _ in found.values()}
    extras = [f"{p.name} is not graded (it is not a notebook of this assignment)"
              for p in files if p not in used and not any(p.name in n for _, n in found.values())]
    return found, extras


def discover(root: Path, subs: Path, assignments: list[str], students: list[str] | None) -> list[Found]:
    """Every submitted notebook to grade, in nbgrader's ``submitted/STUDENT/ASSIGNMENT/`` layout."""
    known = set(course.assignment_names(root, None))
    names = course.assignment_names(root, assignments) if assignments else \
        sorted({p.name for p in subs.glob("*/*") if p.is_dir()} & known)
    folders = sorted(p for p in subs.iterdir() if p.is_dir() and not p.name.startswith("."))
    if students:
        missing = [s for s in students if not any((subs / s / a).is_dir() for a in names)]
        if missing:
            have = sorted({p.name for p in folders if any((p / a).is_dir() for a in names)})
            raise UserError(f"no submission of {', '.join(missing)} for {', '.join(names) or 'any assignment'} in "
                            f"{subs} (students with a submission: {', '.join(have[:20]) or 'none'}"
                            f"{' ...' if len(have) > 20 else ''})")
    out = []
    for name in names:
        a = course.Assignment(name, root)
        release_ids = notebook_ids(a)
        for sdir in folders:
            if (students and sdir.name not in students) or not (sdir / name).is_dir():
                continue
            found, extras = locate(sdir / name, release_ids)
            for nb in a.notebooks():
                path, note = found.get(nb, (sdir / name / f"{nb}.ipynb", ""))
                out.append(Found(a, nb, sdir.name, path, [n for n in [note] if n] + extras))
    return out


def set_submitted_at(root: Path, found: list[Found], when: str) -> None:
    """Record the instructor's word for the submission time of each submission planned (``--submitted-at``),
    kept outside the submission where no learner can write it (:mod:`autograder.adapters.times`)."""
    parsed = late.parse_time(when)
    if parsed is None:
        raise UserError(f"--submitted-at {when!r} is not a time: give one such as '2026-11-20 17:05:00 UTC'")
    stamp = parsed.strftime("%Y-%m-%d %H:%M:%S.%f UTC")
    for key in sorted({(f.assignment.name, f.student, f.path.parent) for f in found}):
        assignment, student, folder = key
        before = times.recorded(root, assignment, student, folder)
        if before != (stamp, times.INSTRUCTOR):
            times.record(root, assignment, student, folder, stamp, times.INSTRUCTOR)
            print(f"{student}/{assignment}: submitted at {stamp}" + (f" (was {before[0]}, {before[1]})" if before else ""))


def unreadable_nbgrader_time(root: Path, f: Found) -> str | None:
    """The text of nbgrader's ``timestamp.txt`` when it is the time this notebook would be judged by and
    does not read as a time (else None): nbgrader's own Autograde stops at it, before any step the course
    configures, so ``grade`` holds it too (no penalty is guessed) until the file is corrected or the
    instructor gives the time."""
    when, source = times.submission_time(root, f.assignment.name, f.student, f.path.parent)
    return when if source == times.NBGRADER and late.parse_time(when) is None else None


def ungraded_away(root: Path, subs: Path, assignments: list[str]) -> list[str]:
    """``STUDENT (ASSIGNMENT)`` for each recorded result of ``assignments`` whose submission folder is gone."""
    store = ResultStore(root)
    return sorted({f"{student} ({a})" for a in assignments for _, student, _ in store.recorded(a)
                   if not (subs / student / a).is_dir()})
