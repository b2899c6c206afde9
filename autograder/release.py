"""What a learner sees, made by nbgrader's own code: the released notebooks (``generate_assignment``),
the pristine release a submission is compared with, and the visible part of a test cell.

Every way of removing hidden tests or solutions goes through nbgrader's preprocessors
(``ClearSolutions``, ``ClearHiddenTests``) with the course's configuration, so there is one
rule for what learners get.
"""

from __future__ import annotations

import copy
import filecmp
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat

from . import course, nbfmt


def tool_env(base: dict[str, str] | None = None) -> dict[str, str]:
    """An environment for nbgrader and Jupyter's tools: this interpreter's ``bin`` first on PATH
    (nbgrader runs ``alembic``, the gradebook's migrations, from PATH)."""
    env = dict(os.environ if base is None else base)
    bindir = str(Path(sys.executable).parent)
    if env.get("PATH", "").split(os.pathsep)[0] != bindir:
        env["PATH"] = os.pathsep.join([bindir, env.get("PATH", "")])
    return env


def pristine_release(solution: nbformat.NotebookNode, root: Path) -> nbformat.NotebookNode:
    """The learner notebook as ``nbgrader generate_assignment`` makes it from ``solution`` (sources and
    grading metadata, without checksums), built in memory with nbgrader's own preprocessors.

    Grading compares with this, never with a file in ``notebooks/``: learners edit their copy there
    in place, and an edited copy must not become the template it is judged against.
    """
    from nbgrader.preprocessors import ClearHiddenTests, ClearSolutions

    cfg = course.config(root)
    nb = nbformat.from_dict(copy.deepcopy(solution))
    nb, resources = ClearSolutions(config=cfg).preprocess(nb, {})
    nb, _ = ClearHiddenTests(config=cfg).preprocess(nb, resources)
    return nbfmt.normalize(nb)


def visible_source(cell) -> str:
    """The source of a test cell as learners get it: nbgrader's ``ClearHiddenTests`` applied to it."""
    from nbgrader.preprocessors import ClearHiddenTests

    one = nbformat.v4.new_notebook(cells=[nbformat.from_dict(copy.deepcopy(dict(cell)))])
    one, _ = ClearHiddenTests(enforce_metadata=False).preprocess(one, {})
    return one.cells[0].source


_GENERATE = """
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
if db_url:
    config.CourseDirectory.db_url = db_url
api = NbGraderAPI(coursedir=CourseDirectory(config=config), config=config)
for name in names:
    result = api.generate_assignment(name, force=True, create=True)
    if not result["success"]:
        sys.exit(f"nbgrader generate_assignment {name} failed:\\n{result.get('error') or result.get('log')}")
"""


def generate(names: list[str], root: Path, release_dir: Path, db_url: str | None = None,
             normalize: bool = True) -> None:
    """Run nbgrader's ``generate_assignment`` (its own code, one process for all ``names``) into
    ``release_dir``, recording the assignments in the gradebook; then normalize the notebooks."""
    if not names:
        return
    proc = subprocess.run([sys.executable, "-c", _GENERATE, str(root), str(release_dir), db_url or "", *names],
                          cwd=root, capture_output=True, text=True, env=tool_env())
    if proc.returncode != 0:
        raise RuntimeError(f"generating {', '.join(names)} failed:\n{proc.stdout}\n{proc.stderr}")
    if normalize:
        for name in names:
            for nb in (Path(release_dir) / name).glob("*.ipynb"):
                nbfmt.format_file(nb)


def register(names: list[str], root: Path, db_url: str) -> None:
    """Enter assignments and their cells into the gradebook as ``generate_assignment`` does
    (the generated files are discarded)."""
    with tempfile.TemporaryDirectory() as tmp:
        generate(names, root, Path(tmp), db_url, normalize=False)


def release(names: list[str] | None = None, root: Path | None = None) -> list[str]:
    """Regenerate ``notebooks/NAME`` for the given assignments (all by default)."""
    root = root or course.find_root()
    names = names or [a.name for a in course.assignments(root)]
    generate(names, root, course.folder(root, "release"), db_url=f"sqlite:///{root / 'gradebook.db'}")
    return names


def out_of_sync(root: Path | None = None) -> list[str]:
    """Files under ``notebooks/`` that differ from a fresh release of ``solutions/``."""
    root = root or course.find_root()
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        assignments = course.assignments(root)
        generate([a.name for a in assignments], root, tmp / "release", db_url=f"sqlite:///{tmp / 'gb.db'}")
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
