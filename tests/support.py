"""What tests and benchmarks share: a private copy of the course, and the environment to run its tools in."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from autograder.adapters import generate
from autograder.values import course

ROOT = Path(__file__).resolve().parent.parent


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
