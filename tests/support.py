"""What tests and benchmarks share: a private copy of the course, and the environment to run its tools in."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from autograder import course, release

ROOT = Path(__file__).resolve().parent.parent


def copy_course(dest: Path) -> Path:
    """A private copy of the course directory with its sample submissions, so tests never touch the
    repository's gradebook."""
    course.copy_course(ROOT, dest)
    shutil.copytree(ROOT / "examples", dest / "examples", ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def tool_env() -> dict:
    """The environment for the course's tools, without any AUTOGRADER_ setting of the caller's."""
    return release.tool_env({k: v for k, v in os.environ.items() if not k.startswith("AUTOGRADER_")})


def run_tool(args, cwd, timeout=1800):
    return subprocess.run(args, cwd=cwd, env=tool_env(), capture_output=True, text=True, timeout=timeout)
