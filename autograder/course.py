"""The course directory: where notebooks live and what their cells mean.

Cell conventions (checked by ``tests/test_metadata.py``):

* an exercise has an id ``exN_M`` (N = notebook number, M = exercise number);
* its answer cell is an nbgrader solution cell with ``grade_id`` ``exN_M_solution``;
* its test cell is an nbgrader autograded-tests cell with ``grade_id`` ``exN_M_tests``,
  holding visible asserts and a ``### BEGIN HIDDEN TESTS`` block that calls
  :func:`autograder.probe.hidden_test` with the exercise id.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat

EXERCISE_RE = re.compile(r"^(ex\d+_\d+)_(solution|tests)$")
HIDDEN_BEGIN = "### BEGIN HIDDEN TESTS"
HIDDEN_END = "### END HIDDEN TESTS"


def find_root(start: str | os.PathLike | None = None) -> Path:
    """The course root: ``$AUTOGRADER_COURSE_ROOT`` or the nearest parent with ``nbgrader_config.py`` and
    its source folder (``solutions/`` in the course, ``.release/`` in a student pack)."""
    env = os.environ.get("AUTOGRADER_COURSE_ROOT")
    if env:
        return Path(env).resolve()
    here = Path(start or os.getcwd()).resolve()
    for p in [here, *here.parents]:
        if (p / "nbgrader_config.py").is_file() and ((p / "solutions").is_dir() or folder(p, "source").is_dir()):
            return p
    # the package lives inside the course repository
    pkg_root = Path(__file__).resolve().parent.parent
    if (pkg_root / "solutions").is_dir():
        return pkg_root
    raise FileNotFoundError("no course directory found (no nbgrader_config.py with solutions/ above %s)" % here)


def nbgrader_meta(cell) -> dict:
    """A cell's nbgrader metadata; {} where a submitted cell holds something else there."""
    meta = cell.get("metadata") if isinstance(cell, dict) else None
    found = meta.get("nbgrader") if isinstance(meta, dict) else None
    return dict(found) if isinstance(found, dict) else {}


def grade_id(cell) -> str | None:
    """The cell's nbgrader ``grade_id``, or None (also for a malformed one, such as a list)."""
    gid = nbgrader_meta(cell).get("grade_id")
    return gid if isinstance(gid, str) and gid else None


def exercise_of(cell) -> str | None:
    gid = grade_id(cell) or ""
    m = EXERCISE_RE.match(gid)
    return m.group(1) if m else None


def _nbutils():
    """nbgrader's cell predicates (imported on first use: importing nbgrader takes about a second)."""
    from nbgrader import utils

    return utils


def _checked(cell) -> nbformat.NotebookNode:
    """The cell as nbgrader's own predicates read it, with malformed nbgrader metadata read as none."""
    return nbformat.from_dict({"cell_type": cell.get("cell_type") if isinstance(cell, dict) else None,
                               "metadata": {"nbgrader": nbgrader_meta(cell)}})


def is_solution(cell) -> bool:
    """An answer cell (nbgrader's solution cell)."""
    return bool(_nbutils().is_solution(_checked(cell)))


def is_grade(cell) -> bool:
    """A cell the gradebook scores (nbgrader's grade cell)."""
    return bool(_nbutils().is_grade(_checked(cell)))


def is_tests(cell) -> bool:
    """A test cell: graded, not an answer, code."""
    checked = _checked(cell)
    return bool(_nbutils().is_grade(checked)) and not _nbutils().is_solution(checked) and checked.cell_type == "code"


@dataclass
class Exercise:
    id: str
    points: float
    solution_cells: list[int]
    test_cell: int
    title: str = ""

    @property
    def number(self) -> str:
        return self.id[2:].replace("_", ".")


def exercises(nb) -> list[Exercise]:
    """The exercises of a notebook, in order, from its nbgrader metadata."""
    found: dict[str, Exercise] = {}
    order: list[str] = []
    for i, cell in enumerate(nb.cells):
        ex = exercise_of(cell)
        if not ex:
            continue
        if ex not in found:
            found[ex] = Exercise(ex, 0.0, [], -1)
            order.append(ex)
        e = found[ex]
        if is_tests(cell):
            e.test_cell = i
            e.points = float(nbgrader_meta(cell).get("points", 0))
        elif is_solution(cell):
            e.solution_cells.append(i)
    for ex in order:
        e = found[ex]
        # the exercise header is the nearest markdown cell above the first solution cell
        first = e.solution_cells[0] if e.solution_cells else e.test_cell
        for j in range(first - 1, -1, -1):
            if nb.cells[j].cell_type == "markdown" and "Exercise" in nb.cells[j].source:
                for line in nb.cells[j].source.splitlines():
                    if "Exercise" in line:
                        # "Exercise 1.2 — Title · difficulty ●●○○ · ..." -> "Exercise 1.2 — Title"
                        e.title = re.split(r"\s+·\s+difficulty|\s{2,}|\s+difficulty", line.lstrip("#").strip())[0]
                        break
                break
    return [found[ex] for ex in order]


_CONFIGS: dict[str, object] = {}


def config(root: Path):
    """The course's nbgrader configuration (``nbgrader_config.py`` at ``root``), read once per process."""
    key = str(Path(root).resolve())
    if key not in _CONFIGS:
        from traitlets.config import Config
        from traitlets.config.loader import PyFileConfigLoader

        cfg = Config()
        if (Path(root) / "nbgrader_config.py").is_file():
            cfg.merge(PyFileConfigLoader("nbgrader_config.py", path=key).load_config())
        cfg.CourseDirectory.root = key
        _CONFIGS[key] = cfg
    return _CONFIGS[key]


def directories(root: Path):
    """nbgrader's ``CourseDirectory`` for the course: the names of its folders, as the config sets them."""
    from nbgrader.coursedir import CourseDirectory

    return CourseDirectory(config=config(root))


@dataclass
class Assignment:
    name: str
    root: Path

    def _folder(self, kind: str) -> Path:
        return Path(self.root) / getattr(directories(self.root), f"{kind}_directory") / self.name

    @property
    def solution_dir(self) -> Path:
        return self._folder("source")

    @property
    def release_dir(self) -> Path:
        return self._folder("release")

    def notebooks(self) -> list[str]:
        return sorted(p.stem for p in self.solution_dir.glob("*.ipynb"))

    def solution(self, notebook: str) -> Path:
        return self.solution_dir / f"{notebook}.ipynb"

    def release(self, notebook: str) -> Path:
        return self.release_dir / f"{notebook}.ipynb"


def folder(root: Path, kind: str, *parts: str) -> Path:
    """One of the course's nbgrader folders (``kind``: source, release, submitted, autograded,
    feedback), with ``parts`` below it."""
    return Path(root).joinpath(getattr(directories(root), f"{kind}_directory"), *parts)


def assignments(root: Path | None = None) -> list[Assignment]:
    root = root or find_root()
    return [Assignment(p.name, root) for p in sorted(folder(root, "source").iterdir())
            if p.is_dir() and any(p.glob("*.ipynb"))]


def assignment_of_notebook(path: Path, root: Path | None = None) -> tuple[Assignment, str]:
    """Which assignment and notebook name a notebook file belongs to (by its file name)."""
    root = root or find_root()
    stem = Path(path).stem
    for a in assignments(root):
        if stem in a.notebooks():
            return a, stem
    raise KeyError(f"{path}: no notebook named {stem!r} in solutions/")


def find_exercise(exercise: str, root: Path | None = None) -> tuple[Assignment, str]:
    root = root or find_root()
    n = exercise.split("_")[0][2:]
    for a in assignments(root):
        for name in a.notebooks():
            if not name.startswith(n.zfill(2)):
                continue
            nb = read(a.solution(name))
            if any(exercise_of(c) == exercise for c in nb.cells):
                return a, name
    raise KeyError(f"exercise {exercise} not found in solutions/")


def copy_course(root: Path, dest: Path, parts: tuple[str, ...] = ("source", "release")) -> Path:
    """A copy of the course's ``parts`` (nbgrader folder kinds) and its ``nbgrader_config.py`` in ``dest``."""
    import shutil

    dest = Path(dest)
    for kind in parts:
        src = folder(root, kind)
        shutil.copytree(src, dest / src.relative_to(root),
                        ignore=shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints"))
    shutil.copy(Path(root) / "nbgrader_config.py", dest / "nbgrader_config.py")
    return dest


def read(path: os.PathLike) -> nbformat.NotebookNode:
    return nbformat.read(str(path), as_version=4)
