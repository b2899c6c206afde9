"""``autograder progress``: a self-study learner's view of the whole course.

Runs :func:`autograder.commands.check.check` on every notebook (``notebooks/*/*.ipynb`` of the
course, or of a folder given on the command line) and prints one table: each exercise
passed, failed or not attempted, with the test's message and the concept to revisit
for each failure.  A notebook whose answer cells all still hold the released stub is
reported as not attempted without starting a kernel.

Learners edit the notebooks in ``notebooks/`` in place; like every grading path, the
checks compare them with the release rebuilt in memory from ``solutions/``
(:func:`autograder.values.learner_view.pristine_release`), never with the edited copy.  With
``hidden=True`` the instructor's hidden tests run too; only their verdicts and hints
are shown, never their source or the expected values.
"""

from __future__ import annotations

import sys
from pathlib import Path

from autograder.commands import check
from autograder.grading.coursedata import NotebookData
from autograder.grading.submission import attempted, read_submission
from autograder.values import course
from autograder.values.errors import UserError
from autograder.values.records import ExerciseResult, NotebookResult

SYMBOL = check.SYMBOL


def find_notebooks(target: Path | None, root: Path) -> list[Path]:
    """The notebooks to report on: a single notebook, the notebooks under a folder, or the course's."""
    if target is None:
        return sorted(course.folder(root, "release").glob("*/*.ipynb"))
    if target.is_file():
        return [target]
    direct = sorted(target.glob("*.ipynb"))
    nested = sorted(target.glob("*/*.ipynb"))
    return [p for p in direct + nested if ".ipynb_checkpoints" not in p.parts]


def untouched_result(path: Path, root: Path) -> NotebookResult | None:
    """All-TODO result for a notebook none of whose exercises is attempted (None when one is, or unknown).
    ``root`` is the course the notebook belongs to."""
    try:
        assignment, name = course.assignment_of_notebook(path, root)
        data = NotebookData.loaded(assignment, name)
        submitted = read_submission(path)
        student, problem = submitted.nb, submitted.problem
    except (UserError, OSError, ValueError):  # not readable or not known here: check reports it
        return None
    if problem or student is None:
        return None
    exercises = data.exercises
    if any(attempted(student, data.release, ex) for ex in exercises):
        return None
    result = NotebookResult("me", assignment.name, name)
    result.exercises = [ExerciseResult(ex.id, ex.title, ex.points, 0.0, "not attempted",
                                               "the answer cell still holds the stub") for ex in exercises]
    return result


def check_all(notebooks: list[Path], hidden: bool, root: Path, seed: int | None = None,
        log=None, full: bool = False) -> list[tuple[Path, NotebookResult | None, str | None]]:
    """Check each notebook against the course at ``root``;
    return (path, result, problem) per notebook, in order."""
    out = []
    for path in notebooks:
        path = path.resolve()
        try:
            result = untouched_result(path, root)
            if result is None:
                if log:
                    log(f"running {path.name} ({'visible and hidden' if hidden else 'visible'} tests) ...")
                result = check.check(path, hidden=hidden, seed=seed, full=full)
            out.append((path, result, None))
        except UserError as exc:  # not a notebook, or not one of the course's: said in one line, the others go on
            out.append((path, None, str(exc)))
        except Exception as exc:  # one broken notebook must not hide the others
            out.append((path, None, f"could not be checked: {type(exc).__name__}: {str(exc)[:300]}"))
    return out


def _failure_lines(e: ExerciseResult) -> list[str]:
    lines = [m for m in (e.message or "").splitlines() if m.strip()]
    for hint in [h.strip() for h in (e.hint or "").split(";") if h.strip()]:
        if not any(hint in m for m in lines):
            lines.append(f"revisit: {hint}")
    return lines


def table(rows, hidden: bool) -> str:
    """The progress table: one line per exercise, failure details indented below it."""
    width = max([len(e.title or e.id) for _, r, _ in rows if r for e in r.exercises] + [20])
    lines = [f"Course progress ({'visible and hidden' if hidden else 'visible'} tests)", ""]
    totals = {s: 0 for s in SYMBOL}
    score = max_score = 0.0
    for path, result, problem in rows:
        if result is None:
            lines += [f"{path}", f"  [FAIL] {problem}", ""]
            totals["failed"] += 1
            continue
        renamed = f"  [{path.name}]" if path.stem != result.notebook else ""
        lines.append(f"{result.assignment}/{result.notebook}{renamed}  ({result.score:g}/{result.max_score:g})")
        for e in result.exercises:
            totals[e.status] += 1
            lines.append(f"  [{SYMBOL[e.status]}] {(e.title or e.id):<{width}}  {e.score:>3g}/{e.points:g}")
            if e.status == "failed":
                lines += ["         " + m for m in _failure_lines(e)]
        if result.error:
            lines.append(f"  run stopped early: {result.error}")
        score += result.score
        max_score += result.max_score
        lines.append("")
    lines.append(check.score_line(totals, score, max_score))
    if not hidden:
        lines.append("(visible tests only: add --hidden to run the hidden tests too, without seeing them)")
    return "\n".join(lines)


def exit_code(rows) -> int:
    """0: all passed; 1: something failed (or a notebook could not be run); 3: nothing failed, some not attempted."""
    codes = [1 if r is None else check.exit_code(r) for _, r, _ in rows]
    if not codes:
        return 2
    if 1 in codes:
        return 1
    return 3 if 3 in codes else 0


def run(args) -> int:
    target = Path(args.path) if getattr(args, "path", None) else None
    if target is not None and not target.exists():
        raise UserError(f"no such notebook or folder: {target}")
    if target is None:
        root = course.find_root()
    elif target.is_file():
        root = check.course_root(target)
    else:
        try:
            root = course.find_root(target)
        except course.CourseNotFound:  # a folder of notebooks kept outside the course: the course is where we run
            root = course.find_root()
    notebooks = find_notebooks(target, root)
    if not notebooks:
        raise UserError(f"no notebooks found in {target or course.folder(root, 'release')}")

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    rows = check_all(notebooks, hidden=args.hidden, root=root, seed=args.seed, log=log, full=getattr(args, "full", False))
    print(table(rows, args.hidden))
    return exit_code(rows)
