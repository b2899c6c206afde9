import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import os
import shutil
import subprocess

import pytest

ROOT = Path(__file__).resolve().parent.parent


def copy_course(dest: Path) -> Path:
    """A private copy of the course directory, so tests never touch the repository's gradebook."""
    for name in ("solutions", "notebooks", "examples"):
        shutil.copytree(ROOT / name, dest / name, ignore=shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints"))
    shutil.copy(ROOT / "nbgrader_config.py", dest / "nbgrader_config.py")
    return dest


def tool_env() -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AUTOGRADER_")}
    env["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), env.get("PATH", "")])
    return env


def run_tool(args, cwd, timeout=1800):
    return subprocess.run(args, cwd=cwd, env=tool_env(), capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def course_dir(tmp_path):
    return copy_course(tmp_path / "course")
os.environ.setdefault("OMP_NUM_THREADS", "1")  # parallel test workers: one thread per kernel
