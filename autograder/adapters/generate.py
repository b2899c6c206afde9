"""nbgrader's ``generate_assignment``, run as nbgrader runs it: the released notebooks of an assignment
(which the ``release`` command, :mod:`autograder.commands.release`, puts into ``notebooks/``) and its
entry in the gradebook; and the environment nbgrader's tools need.  What a learner sees of one notebook,
built in memory by the same preprocessors, is :mod:`autograder.values.learner_view`.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from autograder.values import course, nbfmt, support


def tool_env(base: dict[str, str] | None = None) -> dict[str, str]:
    """An environment for nbgrader and Jupyter's tools: this interpreter's ``bin`` first on PATH
    (nbgrader runs ``alembic``, the gradebook's migrations, from PATH)."""
    env = dict(os.environ if base is None else base)
    bindir = str(Path(sys.executable).parent)
    if env.get("PATH", "").split(os.pathsep)[0] != bindir:
        env["PATH"] = os.pathsep.join([bindir, env.get("PATH", "")])
    return env


_GENERATE = """
import sys
from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader
from nbgrader.apps import NbGraderAPI
from nbgrader.coursedir import CourseDirectory

root, release_dir, db_url, record, *names = sys.argv[1:]
config = Config()
config.merge(PyFileConfigLoader("nbgrader_config.py", path=root).load_config())
config.CourseDirectory.root = root
if record != "record":  # generated for the gradebook or a comparison, never handed out
    config.RecordReleasedCells.enabled = False
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
             normalize: bool = True, handed_out: bool = True) -> None:
    """Run nbgrader's ``generate_assignment`` (its own code, one process for all ``names``) into
    ``release_dir``, recording the assignments in the gradebook; keep only the notebooks and the files
    they list (:mod:`autograder.values.support`); then normalize the notebooks.  A release to hand out
    (``handed_out``) adds its cells to the course's record of released cells
    (:mod:`autograder.values.released`); one made only to compare or to fill the gradebook does not."""
    if not names:
        return
    proc = subprocess.run([sys.executable, "-c", _GENERATE, str(root), str(release_dir), db_url or "",
                           "record" if handed_out else "no-record", *names],
                          cwd=root, capture_output=True, text=True, env=tool_env())
    if proc.returncode != 0:
        raise RuntimeError(f"generating {', '.join(names)} failed:\n{proc.stdout}\n{proc.stderr}")
    for name in names:  # the course's nbgrader_config ignores them already; a configuration that does not
        # (an older copy of it) must not ship them either
        support.prune(Path(release_dir) / name, support.listed(course.Assignment(name, root).solution_dir))
    if normalize:
        for name in names:
            for nb in (Path(release_dir) / name).glob("*.ipynb"):
                nbfmt.format_file(nb)


def register(names: list[str], root: Path, db_url: str) -> None:
    """Enter assignments and their cells into the gradebook as ``generate_assignment`` does
    (the generated files are discarded)."""
    with tempfile.TemporaryDirectory() as tmp:
        generate(names, root, Path(tmp), db_url, normalize=False, handed_out=False)
