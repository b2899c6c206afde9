"""``autograder check``: a learner's own report on one notebook."""

from __future__ import annotations

from pathlib import Path

from autograder import probe
from autograder.grading.coursedata import NotebookData
from autograder.grading.execute import Limits
from autograder.grading.pipeline import grade_notebook
from autograder.grading.references import run_reference
from autograder.values import course
from autograder.values.errors import UserError
from autograder.values.messages import GRADE_PATH, NOT_STARTED
from autograder.values.records import NotebookResult, Status

SYMBOL = {Status.PASSED: "PASS", Status.FAILED: "FAIL", Status.NOT_ATTEMPTED: "TODO"}


def course_root(path: Path) -> Path:
    """The course ``path`` belongs to: the one it lies in, else the one the command runs in (a notebook
    downloaded elsewhere and checked from the course folder)."""
    try:
        return course.find_root(path.parent)
    except course.CourseNotFound:
        return course.find_root()


def learner_notebook(path: Path, root: Path) -> tuple[course.Assignment, str]:
    """The assignment and notebook a learner's file is (by name, or by its cells when renamed), after
    making sure it is notebook JSON; a file that is not says so in one line, with how to recover it."""
    try:
        nb = course.read_json(path)
        if not isinstance(nb.get("cells"), list):
            raise ValueError("it has no list of cells")
    except ValueError as exc:  # bad JSON, bad UTF-8, not a notebook object
        raise UserError(_not_a_notebook(path, str(exc).splitlines()[0][:120], root)) from None
    return course.assignment_of_notebook(path, root)


def _not_a_notebook(path: Path, reason: str, root: Path) -> str:
    checkpoint = path.parent / ".ipynb_checkpoints" / f"{path.stem}-checkpoint.ipynb"
    saved = (f"copy back {checkpoint}, the last checkpoint JupyterLab saved"
             if checkpoint.is_file() else "use JupyterLab's File > Revert Notebook to Checkpoint")
    name = next((a.name for a in course.assignments(root)
                 if any(path.stem.startswith(n) for n in a.notebooks())), None)
    fresh = (f"run `autograder release {name}` for a fresh copy (it keeps yours aside, renamed)" if name else
             "start again from a fresh copy (`autograder release NAME` writes one into notebooks/, keeping yours aside)")
    return f"{path} is not valid notebook JSON ({reason}): {saved}, or {fresh}"


def check(path: Path, hidden: bool = False, seed: int | None = None, limits: Limits | None = None,
          cache: bool = True, full: bool = False) -> NotebookResult:
    """Grade the learner's own notebook.  With the hidden tests, as grading does: its grade path
    (:mod:`autograder.gradepath`), and with ``full`` the notebook top to bottom beside it, a diagnostic;
    without, every cell, visible tests only."""
    root = course_root(path)
    assignment, name = learner_notebook(path, root)
    data = NotebookData.loaded(assignment, name)
    seed = probe.DEFAULT_SEED if seed is None else seed
    refs = None
    if hidden and data.has_hidden_tests:
        refs = run_reference(data, seed, limits=limits, cache_dir=(root / ".cache" / "reference") if cache else None)
        if not refs.ok:
            raise RuntimeError(refs.failure)
    result, _ = grade_notebook(path, data, student_id="me", seed=seed, refs=refs, limits=limits, full=full)
    return result


def hidden_available(path: Path) -> bool:
    """Whether this copy of the course holds the hidden tests of ``path`` (a student pack does not)."""
    root = course_root(path)
    assignment, name = learner_notebook(path, root)
    return NotebookData.loaded(assignment, name).has_hidden_tests


NO_HIDDEN = ("This student pack holds no hidden tests: your instructor runs them when grading. "
             "Running the visible tests.")
HIDDEN_NOT_RUN = "Hidden tests not run: your instructor runs them when grading"
# where the hidden tests are here to run (the course repository), a learner may run them without seeing them
HIDDEN_HERE = " (in the course repository, add --hidden to run them without seeing them)"
VISIBLE = {Status.PASSED: "visible tests passed", Status.FAILED: "visible tests failed", Status.NOT_ATTEMPTED: Status.NOT_ATTEMPTED}


def no_hidden_note(path: Path) -> str:
    """The one line ``check --hidden`` prints where ``path`` has no hidden tests to run."""
    from autograder.commands.handout import PRISTINE

    if course.directories(course_root(path)).source_directory == PRISTINE:
        return NO_HIDDEN
    return f"{path.name} has no hidden tests. Running the visible tests."


def outcome(e, hidden: bool) -> str:
    """An exercise's result as a learner reads it: points where the hidden tests ran, else what the visible
    tests said (they catch only some bugs: passing them earns nothing yet)."""
    return f"{e.score:g}/{e.points:g}" if hidden else VISIBLE[e.status]


def not_run_note(available: bool) -> str:
    """The line under a report of the visible tests alone; ``available``: the hidden tests are here to run."""
    return HIDDEN_NOT_RUN + (HIDDEN_HERE if available else "") + "."


def summary(result: NotebookResult, hidden: bool, available: bool = True) -> str:
    """``check``'s report; ``hidden``: the hidden tests ran; ``available``: they could (not in a student pack)."""
    lines = [f"{result.assignment}/{result.notebook}: "
             f"{'visible and hidden' if hidden else 'visible'} tests"]
    for e in result.exercises:
        title = e.title or e.id
        lines.append(f"  [{SYMBOL[e.status]}] {title}  ({outcome(e, hidden)})")
        if e.status != Status.PASSED and e.message and e.message != NOT_STARTED:
            lines += ["         " + m for m in _failure_lines(e)]
    if result.error:
        lines.append(f"  run stopped early: {result.error}")
    if hidden and result.run:
        lines.append(f"  {GRADE_PATH[0].upper()}{GRADE_PATH[1:]} ({result.run}).")
    counts = {s: sum(e.status == s for e in result.exercises) for s in SYMBOL}
    lines.append("  " + score_line(counts, result.score, result.max_score, hidden))
    if not hidden:
        lines.append("  " + not_run_note(available))
    return "\n".join(lines)


def score_line(counts: dict[str, int], score: float, max_score: float, hidden: bool = True) -> str:
    """The last line of a report (``check``'s for one notebook, ``progress``'s for all): counts, and the score
    where the hidden tests ran (the visible tests alone give no points)."""
    line = f"{counts['passed']} passed, {counts['failed']} failed, {counts['not attempted']} not attempted"
    if not hidden:
        return line + " (visible tests only: points come from the hidden tests)"
    return line + f"  —  score {score:g}/{max_score:g}"


def _failure_lines(e) -> list[str]:
    """What a learner is told of the exercise (:meth:`~autograder.values.records.ExerciseResult.learner_lines`),
    then what the run raised in their own kernel (at most six lines), each distinct line once."""
    out = e.learner_lines()
    seen = {line.strip() for line in out}
    shown = 0
    for line in (e.detail or "").splitlines():
        key = line.strip()
        if not key or key in seen:
            continue
        if shown == 6:
            break
        seen.add(key)
        out.append("as raised: " + line)
        shown += 1
    return out


def exit_code(result: NotebookResult) -> int:
    """0: all passed; 1: something failed (or the run broke); 3: nothing failed but some not attempted."""
    if result.error or any(e.status == Status.FAILED for e in result.exercises):
        return 1
    if any(e.status == Status.NOT_ATTEMPTED for e in result.exercises):
        return 3
    return 0


def run(args) -> int:
    path = Path(args.notebook)
    if not path.is_file():
        raise UserError(f"no such notebook: {path}")
    available = hidden_available(path)
    hidden = args.hidden and available
    if args.hidden and not available:
        print(no_hidden_note(path))
    result = check(path, hidden=hidden, seed=args.seed, full=args.full)
    print(summary(result, hidden, available))
    return exit_code(result)
