"""Generate the learner notebooks from ``solutions/`` with stock ``nbgrader generate_assignment``."""

from __future__ import annotations

import filecmp
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from . import course, nbfmt


def tool_env() -> dict[str, str]:
    """The environment for nbgrader's subprocesses: this interpreter's ``bin`` first on PATH (nbgrader runs ``alembic``)."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return env


def generate(assignment: str, root: Path, release_dir: Path, db_url: str | None = None) -> None:
    """Run ``nbgrader generate_assignment`` for one assignment into ``release_dir``, then normalize."""
    cmd = [sys.executable, "-m", "nbgrader", "generate_assignment", assignment, "--force",
           f"--CourseDirectory.release_directory={release_dir}", "--log-level=WARN"]
    if db_url:
        cmd.append(f"--CourseDirectory.db_url={db_url}")
    proc = subprocess.run(cmd, cwd=root, capture_output=True, text=True, env=tool_env())
    if proc.returncode != 0:
        raise RuntimeError(f"nbgrader generate_assignment {assignment} failed:\n{proc.stdout}\n{proc.stderr}")
    for nb in (release_dir / assignment).glob("*.ipynb"):
        nbfmt.format_file(nb)


_REGISTER = """
import sys
from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader
from nbgrader.apps import NbGraderAPI
from nbgrader.coursedir import CourseDirectory

root, release_dir, db_url, *names = sys.argv[1:]
config = Config()
config.merge(PyFileConfigLoader("nbgrader_config.py", path=root).load_config())
config.CourseDirectory.root = root
config.CourseDirectory.release_directory = release_dir
config.CourseDirectory.db_url = db_url
api = NbGraderAPI(coursedir=CourseDirectory(config=config), config=config)
for name in names:
    result = api.generate_assignment(name, force=True, create=True)
    if not result["success"]:
        sys.exit(f"nbgrader generate_assignment {name} failed:\\n{result.get('error') or result.get('log')}")
"""


def register(names: list[str], root: Path, db_url: str) -> None:
    """Enter assignments and their cells into the gradebook as ``nbgrader generate_assignment`` does,
    with nbgrader's own code, in one process for all of them (the generated files are discarded)."""
    if not names:
        return
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.run([sys.executable, "-c", _REGISTER, str(root), tmp, db_url, *names], cwd=root,
                              capture_output=True, text=True, env=tool_env())
    if proc.returncode != 0:
        raise RuntimeError(f"registering {', '.join(names)} in the gradebook failed:\n{proc.stdout}\n{proc.stderr}")


def release(names: list[str] | None = None, root: Path | None = None) -> list[str]:
    """Regenerate ``notebooks/NAME`` for the given assignments (all by default)."""
    root = root or course.find_root()
    names = names or [a.name for a in course.assignments(root)]
    for name in names:
        generate(name, root, root / "notebooks", db_url=f"sqlite:///{root / 'gradebook.db'}")
    return names


def out_of_sync(root: Path | None = None) -> list[str]:
    """Files under ``notebooks/`` that differ from a fresh release of ``solutions/``."""
    root = root or course.find_root()
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for a in course.assignments(root):
            generate(a.name, root, tmp / "release", db_url=f"sqlite:///{tmp / 'gb.db'}")
            fresh, committed = tmp / "release" / a.name, root / "notebooks" / a.name
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
