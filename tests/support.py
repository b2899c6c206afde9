"""What tests and benchmarks share: a private copy of the course, and the environment to run its tools in;
the two-exercise fixture course (``tests/fixtures/course``) and how the tests grade it."""

from __future__ import annotations

import contextlib
import faulthandler
import filecmp
import io
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import attacks

from autograder.adapters import generate
from autograder.values import course, messages

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "course"

# tight limits for grading the fixture course: its notebook is small, its attacks are not
LIMITS = {
    "AUTOGRADER_LIMIT_CELL_TIMEOUT": "20",
    "AUTOGRADER_LIMIT_NOTEBOOK_TIMEOUT": "120",
    "AUTOGRADER_LIMIT_MEMORY_MB": "3072",
    "AUTOGRADER_LIMIT_MAX_PROCESSES": "96",
    "AUTOGRADER_LIMIT_MAX_FILE_MB": "64",
    "AUTOGRADER_LIMIT_MAX_OUTPUT_KB": "256",
    "AUTOGRADER_LIMIT_MAX_NOTEBOOK_OUTPUT_KB": "2048",
}
SEED = "4242"  # the grading seed of the fixture course's batches


def copy_course(dest: Path) -> Path:
    """A private copy of the course directory with its sample submissions, so tests never touch the
    repository's gradebook."""
    course.copy_course(ROOT, dest)
    shutil.copytree(ROOT / "examples", dest / "examples", ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def tool_env() -> dict:
    """The environment for the course's tools, without any AUTOGRADER_ setting of the caller's."""
    return generate.tool_env({k: v for k, v in os.environ.items() if not k.startswith("AUTOGRADER_")})


def run_tool(args, cwd, timeout=1800, env: dict | None = None):
    """A command in a process of its own: for what only a process shows (its exit under a signal or a time
    limit, its umask and what it leaves open, workers and kernels it starts, another user or interpreter),
    and for ``grade``, ``hub`` and ``demo``, which start processes of their own and run long; ``env`` is
    added to :func:`tool_env`."""
    return subprocess.run(args, cwd=cwd, env={**tool_env(), **(env or {})}, capture_output=True, text=True,
                          timeout=timeout)


# what a fresh Python shows of warnings (no -W option, no PYTHONWARNINGS): pytest's own filters, and the warnings
# it records, stay out of a command's stderr
_FRESH_WARNING_FILTERS = [("default", DeprecationWarning, "__main__"), ("ignore", DeprecationWarning, ""),
                          ("ignore", PendingDeprecationWarning, ""), ("ignore", ImportWarning, ""),
                          ("ignore", ResourceWarning, "")]


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """A warning, printed as Python prints it (to ``sys.stderr``, the command's while it runs)."""
    (file or sys.stderr).write(warnings.formatwarning(message, category, filename, lineno, line))


def _fresh_process_state() -> None:
    """Forget what the package keeps for the rest of a process (each cache is checked against its files' stamps,
    which a file rewritten within the same tick and size would not change): each command starts as in a
    process of its own."""
    from autograder.adapters import late
    from autograder.grading import coursedata, jobs
    from autograder.values import course as course_values

    course_values._CONFIGS.clear()
    course_values._SOURCE_IDS.clear()
    coursedata._LOADED.clear()
    late._POLICIES.clear()
    jobs._GRADER_VERSION = None  # a digest of the package's files as they are now


def run_cli(args: list[str], cwd, env: dict | None = None, timeout: float = 900) -> subprocess.CompletedProcess:
    """``autograder ARGS`` in this process, as ``python -m autograder ARGS`` runs it in ``cwd`` (the way click's
    ``CliRunner`` runs a command): the environment of :func:`tool_env` with ``env`` added, what it prints to
    ``sys.stdout`` and ``sys.stderr`` (its log lines and warnings included) captured, the exit status of a
    ``SystemExit`` (argparse's errors) or of ``main``'s return.  Any other exception is raised: a traceback
    a process would print is a failing test here.  The working folder, the environment, the umask (a
    class's course sets 077), ``sys.argv``, the root logger and the warning filters are as they were
    afterwards.  Nothing the commands run here prints to the process's file descriptors: each subprocess
    they start (nbgrader, kernels) has its output captured or discarded.  A command still running after
    ``timeout`` seconds ends this process, with every thread's stack on stderr (``faulthandler``): a hang
    fails the test, as a process of its own would be stopped.  For what isolation alone shows,
    :func:`run_tool`."""
    from autograder import cli

    environ = tool_env()
    environ.update(env or {})
    saved_environ, saved_cwd, saved_argv = dict(os.environ), os.getcwd(), sys.argv
    saved_umask = os.umask(0o022)
    os.umask(saved_umask)
    root_logger = logging.getLogger()
    saved_handlers, saved_level = root_logger.handlers[:], root_logger.level
    out, err = io.StringIO(), io.StringIO()
    _fresh_process_state()
    faulthandler.dump_traceback_later(timeout, exit=True)
    try:
        os.environ.clear()
        os.environ.update(environ)
        os.chdir(cwd)
        sys.argv = [str(Path(cli.__file__).with_name("__main__.py")), *args]
        root_logger.handlers = []  # main's logging.basicConfig writes to this stderr, as in a process of its own
        with warnings.catch_warnings(), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            warnings.resetwarnings()
            for action, category, module in reversed(_FRESH_WARNING_FILTERS):
                warnings.filterwarnings(action, category=category, module=module)
            warnings.showwarning = _show_warning  # not to pytest's record of the test's own warnings
            try:
                code = cli.main(list(args))
            except SystemExit as exc:
                code = exc.code
            if code is not None and not isinstance(code, int):  # SystemExit("message"): printed, status 1
                print(code, file=sys.stderr)
                code = 1
    except BaseException as exc:
        exc.add_note(f"autograder {' '.join(map(str, args))} printed:\n{out.getvalue()[-3000:]}{err.getvalue()[-3000:]}")
        raise
    finally:
        faulthandler.cancel_dump_traceback_later()
        for handler in root_logger.handlers:
            if handler not in saved_handlers:
                handler.close()
        root_logger.handlers, root_logger.level = saved_handlers, saved_level
        sys.argv = saved_argv
        os.umask(saved_umask)
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_environ)
    return subprocess.CompletedProcess([sys.executable, "-m", "autograder", *args], 0 if code is None else int(code),
                                       out.getvalue(), err.getvalue())


IN_A_PROCESS = ("grade", "hub", "demo")  # they start workers, kernels or servers of their own, and run long


def run_command(args: list[str], cwd, env: dict | None = None, timeout: float = 900) -> subprocess.CompletedProcess:
    """``autograder ARGS`` as the tests call it: in a process of its own for :data:`IN_A_PROCESS`
    (:func:`run_tool`), else in this one (:func:`run_cli`); ``env`` added to :func:`tool_env` either way."""
    if args[0] in IN_A_PROCESS:
        return run_tool([sys.executable, "-m", "autograder", *args], cwd, timeout=timeout, env=env)
    return run_cli(list(args), cwd, env=env, timeout=timeout)


def set_answers(nb_path: Path, sources: dict[str, str]) -> None:
    """Write ``sources`` (grade_id -> source) into the answer cells of the notebook file, as a learner would."""
    nb = json.loads(Path(nb_path).read_text())
    for cell in nb["cells"]:
        gid = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if gid in sources:
            cell["source"] = sources[gid]
    Path(nb_path).write_text(json.dumps(nb))


def bare_fixture_course(dest: Path) -> Path:
    """A private copy of the fixture course with the course's nbgrader configuration, nothing released."""
    shutil.copytree(FIXTURE, dest)
    shutil.copy(ROOT / "nbgrader_config.py", dest / "nbgrader_config.py")
    return dest


def release(course_dir: Path) -> Path:
    """Release the course's assignments (``autograder release``), as its instructor does first."""
    out = run_cli(["release"], course_dir)
    assert out.returncode == 0, out.stdout + out.stderr
    return course_dir


def fixture_course(dest: Path) -> Path:
    """A private copy of the fixture course, released."""
    return release(bare_fixture_course(dest))


def fix_term_seed(course_dir: Path, seed: str | int = SEED) -> None:
    """Make ``seed`` the fixture assignment's hidden-test seed for the term, as if the first ``grade`` had drawn
    it (``.autograder/seeds.json``), unless one is kept already: every batch of a test grades on the same
    inputs, and keeps its results (``grade --seed N`` keeps nothing)."""
    path = Path(course_dir) / ".autograder" / "seeds.json"
    seeds = json.loads(path.read_text()) if path.is_file() else {}
    seeds.setdefault(attacks.ASSIGNMENT, int(seed))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(seeds))


def grade(course_dir: Path, *extra: str, env: dict | None = None, timeout: float = 1500):
    """``autograder grade`` on the fixture assignment, under :data:`LIMITS` and the term seed :data:`SEED`, with
    the secret the attacks look for in the grader's environment."""
    fix_term_seed(course_dir)
    e = tool_env()
    e.update(LIMITS)
    e["AUTOGRADER_TEST_SECRET"] = attacks.SECRET
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", "autograder", "grade", attacks.ASSIGNMENT, *extra],
                          cwd=course_dir, env=e, capture_output=True, text=True, timeout=timeout)


def results(course_dir: Path) -> dict[str, dict]:
    """Each student's stored result for the fixture assignment, by student."""
    out = {}
    for p in (course_dir / ".autograder" / "results" / attacks.ASSIGNMENT).glob(f"*/{attacks.ASSIGNMENT}.json"):
        out[p.parent.name] = json.loads(p.read_text())["result"]
    return out


COURSE_ID = "pytorch-course"


def nbgrader(*args, cwd, user=None, home=None):
    """Run one of nbgrader's commands; with ``user`` and ``home``, as that student (what a JupyterHub's
    ``JUPYTERHUB_USER`` gives nbgrader there)."""
    env = tool_env()
    if user:
        env.update({"JUPYTERHUB_USER": user, "USER": user, "LOGNAME": user, "HOME": str(home)})
    cmd = [str(Path(sys.executable).parent / "nbgrader"), *args]
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


@contextlib.contextmanager
def folder_for_accounts(prefix: str, users):
    """A fresh folder under /tmp that every local account can pass through, for a class server's tests.

    Every person's server runs this interpreter: where it lives in a folder closed to other accounts (a
    Python under root's home), that folder is opened to passing through (o+x) for the block and closed
    again after it.  That mode is the whole machine's: every test that uses this block is in one xdist group
    (``browser``), so that no test closes the folder while another's accounts still run Python from it.
    Afterwards the accounts ``users`` (which the block's class server made) are removed with their processes
    and home folders, whatever happened, and so is the folder."""
    base = Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))
    base.chmod(0o755)
    closed = {f: f.stat().st_mode for f in Path(sys.executable).resolve().parents
              if f.is_dir() and not f.stat().st_mode & 0o001}
    try:
        for folder, mode in closed.items():
            folder.chmod(mode | 0o001)
        yield base
    finally:
        for user in users:
            subprocess.run(["pkill", "-KILL", "-u", user], capture_output=True)
            subprocess.run(["userdel", "--remove", user], capture_output=True)
            subprocess.run(["groupdel", user], capture_output=True)
        for folder, mode in closed.items():
            folder.chmod(mode & 0o7777)
        shutil.rmtree(base, ignore_errors=True)


def visible_failure(name: str | None, line: int | None, test_source: str | None, known: dict | None = None) -> str:
    """The learner-facing message for a test cell that raised ``name`` at its ``line``, from trusted text only
    (``known``: the student's variant, drawn by the grader)."""
    failure = messages.visible_assert(name, line, test_source, known)
    return (failure or messages.Failure("visible tests", "", *messages.raised(name, None, line, ""))).visible_text()


def out_of_sync(root: Path | None = None) -> list[str]:
    """Files under ``notebooks/`` that differ from a fresh release of ``solutions/``."""
    root = root or course.find_root()
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        assignments = course.assignments(root)
        generate.generate([a.name for a in assignments], root, tmp / "release", db_url=course.sqlite_url(tmp / "gb.db"),
                 handed_out=False)
        for a in assignments:
            fresh, committed = tmp / "release" / a.name, a.release_dir
            if not committed.is_dir():
                problems.append(f"notebooks/{a.name} is missing")
                continue
            cmp = filecmp.dircmp(fresh, committed, ignore=["__pycache__", ".ipynb_checkpoints"])
            stack = [(cmp, Path(a.name))]
            while stack:
                c, rel = stack.pop()
                problems += [f"notebooks/{rel / f} differs from a fresh release" for f in c.diff_files]
                problems += [f"notebooks/{rel / f} is missing" for f in c.left_only]
                problems += [f"notebooks/{rel / f} is not in solutions/" for f in c.right_only]
                stack += [(sub, rel / name) for name, sub in c.subdirs.items()]
        shutil.rmtree(tmp / "release", ignore_errors=True)
    return problems
