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
from autograder.grading.steps.judge import attempted
from autograder.grading.steps.read import read_submission
from autograder.values import course
from autograder.values.errors import UserError
from autograder.values.files import is_kept_copy
from autograder.values.messages import NOT_STARTED
from autograder.values.records import ExerciseResult, NotebookResult, Status

SYMBOL = check.SYMBOL


def find_notebooks(target: Path | None, root: Path) -> list[Path]:
    """The notebooks to report on: a single notebook, the notebooks under a folder, or the course's; never a
    copy a release kept aside (``NAME.mine-TIME.ipynb``: the work it holds is counted where the learner goes
    on with it), unless named alone."""
    if target is not None and target.is_file():
        return [target]
    if target is None:
        found = sorted(course.folder(root, "release").glob("*/*.ipynb"))
    else:
        found = sorted(target.glob("*.ipynb")) + sorted(target.glob("*/*.ipynb"))
    return [p for p in found if ".ipynb_checkpoints" not in p.parts and not is_kept_copy(p)]


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
    result.exercises = [ExerciseResult(ex.id, ex.title, ex.points, 0.0, Status.NOT_ATTEMPTED, NOT_STARTED)
                        for ex in exercises]
    return result


def check_all(notebooks: list[Path], hidden: bool, root: Path, seed: int | None = None,
        log=None, full: bool = False) -> list[tuple[Path, NotebookResult | None, str | None, bool]]:
    """Check each notebook against the course at ``root``; return (path, result, problem, whether its
    hidden tests ran) per notebook, in order (a student pack holds none to run)."""
    out = []
    for path in notebooks:
        path = path.resolve()
        ran_hidden = False
        try:
            ran_hidden = hidden and check.hidden_available(path)
            result = untouched_result(path, root)
            if result is None:
                if log:
                    log(f"running {path.name} ({'visible and hidden' if ran_hidden else 'visible'} tests) ...")
                result = check.check(path, hidden=ran_hidden, seed=seed, full=full)
            out.append((path, result, None, ran_hidden))
        except UserError as exc:  # not a notebook, or not one of the course's: said in one line, the others go on
            out.append((path, None, str(exc), ran_hidden))
        except Exception as exc:  # one broken notebook must not hide the others
            out.append((path, None, f"could not be checked: {type(exc).__name__}: {str(exc)[:300]}", ran_hidden))
    return out


def table(rows, hidden: bool, full: bool = False) -> str:
    """The progress table: one line per exercise, failure details indented below it; points only where the
    hidden tests ran (``hidden``: they were asked for); with ``full``, how each notebook ran: its grade path,
    and where top to bottom differs."""
    width = max([len(e.title or e.id) for _, r, _, _ in rows if r for e in r.exercises] + [20])
    ran = any(ran_hidden for *_, ran_hidden in rows)
    lines = [f"Course progress ({'visible and hidden' if ran else 'visible'} tests)", ""]
    totals = {s: 0 for s in SYMBOL}
    score = max_score = 0.0
    for path, result, problem, ran_hidden in rows:
        if result is None:
            lines += [f"{path}", f"  [FAIL] {problem}", ""]
            totals[Status.FAILED] += 1
            continue
        renamed = f"  [{path.name}]" if path.stem != result.notebook else ""
        points = f"  ({result.score:g}/{result.max_score:g})" if ran_hidden else ""
        lines.append(f"{result.assignment}/{result.notebook}{renamed}{points}")
        for e in result.exercises:
            totals[e.status] += 1
            lines.append(f"  [{SYMBOL[e.status]}] {(e.title or e.id):<{width}}  "
                         + (f"{e.score:>3g}/{e.points:g}" if ran_hidden else check.outcome(e, False)))
            if e.status != Status.PASSED and e.message and e.message != NOT_STARTED:
                lines += ["         " + m for m in e.learner_lines()]
        if result.error:
            lines.append(f"  run stopped early: {result.error}")
        if full and ran_hidden:  # --full's diagnostic beside the grade path
            lines.append(f"  {result.run}")
        score += result.score
        max_score += result.max_score
        lines.append("")
    lines.append(check.score_line(totals, score, max_score, ran))
    if not ran:
        # asked for and none ran: this copy holds none (a student pack); not asked: say how, where they are here
        lines.append(check.not_run_note(not hidden and bool(rows) and _available(rows[0][0])))
    return "\n".join(lines)


def _available(path: Path) -> bool:
    """Whether the hidden tests of ``path`` are here to run (the course repository, not a student pack)."""
    try:
        return check.hidden_available(path)
    except (UserError, OSError, ValueError):  # not a notebook of this course: nothing to offer
        return False


def exit_code(rows) -> int:
    """0: all passed; 1: something failed (or a notebook could not be run); 3: nothing failed, some not attempted."""
    codes = [1 if r is None else check.exit_code(r) for _, r, *_ in rows]
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
    if args.hidden and not any(ran_hidden for *_, ran_hidden in rows):
        print(check.no_hidden_note(notebooks[0]))
    print(table(rows, args.hidden, getattr(args, "full", False)))
    return exit_code(rows)
