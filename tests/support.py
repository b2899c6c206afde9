"""What tests and benchmarks share: a private copy of the course, and the environment to run its tools in;
the two-exercise fixture course (``tests/fixtures/course``) and how the tests grade it."""

from __future__ import annotations

import contextlib
import filecmp
import json
import os
import shutil
import subprocess
import sys
import tempfile
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


def run_tool(args, cwd, timeout=1800):
    return subprocess.run(args, cwd=cwd, env=tool_env(), capture_output=True, text=True, timeout=timeout)


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
    out = run_tool([sys.executable, "-m", "autograder", "release"], course_dir)
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
