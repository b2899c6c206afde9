"""The course directory: where notebooks live and what their cells mean.

Cell conventions (checked by ``tests/unit/test_metadata.py``):

* an exercise has an id ``exN_M`` (N = notebook number, M = exercise number);
* its answer cell is an nbgrader solution cell with ``grade_id`` ``exN_M_solution``;
* its test cell is an nbgrader autograded-tests cell with ``grade_id`` ``exN_M_tests``,
  holding visible asserts and a ``### BEGIN HIDDEN TESTS`` block (:class:`Markers`) that calls
  :func:`autograder.probe.hidden_test` with the exercise id.

One module of about 420 lines: every convention of the course's cells and folders in one place, so that
no other module spells a grade id, a marker or a folder name.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat

from autograder.values.errors import UserError
from autograder.values.files import stamp as file_stamp

EXERCISE_RE = re.compile(r"^(ex\d+_\d+)_(solution|tests)$")


class CourseNotFound(UserError, FileNotFoundError):
    """No course directory where a command looked (also a ``FileNotFoundError``, for callers that
    treat a missing course as a missing file)."""


def find_root(start: str | os.PathLike | None = None) -> Path:
    """The course root: ``$AUTOGRADER_COURSE_ROOT`` or the nearest parent of ``start`` (default: the
    working directory) with ``nbgrader_config.py`` and its source folder (``solutions/`` in the course,
    ``.release/`` in a student pack).  Nowhere else: a command run outside a course stops with
    :class:`CourseNotFound` saying where it looked, never working on some other copy of the course."""
    env = os.environ.get("AUTOGRADER_COURSE_ROOT")
    if env:
        root = Path(env).resolve()
        if not (root / "nbgrader_config.py").is_file():
            raise CourseNotFound(f"AUTOGRADER_COURSE_ROOT={env} is not a course folder (it has no "
                                 "nbgrader_config.py): set it to the course folder, or unset it and cd into the course")
        return root
    here = Path(start or os.getcwd()).resolve()
    for p in [here, *here.parents]:
        if (p / "nbgrader_config.py").is_file() and ((p / "solutions").is_dir() or folder(p, "source").is_dir()):
            return p
    raise CourseNotFound(f"no course found in {here} or any folder above it (a course folder holds "
                         "nbgrader_config.py and solutions/, or .release/ in a student pack): cd into the "
                         "course folder, or set AUTOGRADER_COURSE_ROOT to it")


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


def natural_key(name: str) -> tuple:
    """A name's sort key with its numbers as numbers: ``ex7_6`` before ``ex7_7``, ``ex2_9`` before ``ex10_1``."""
    return tuple((0, int(part)) if part.isdigit() else (1, part) for part in re.split(r"(\d+)", name) if part)


def exercises(nb) -> list[Exercise]:
    """The exercises of a notebook, in the order of their numbers (7.6 before 7.7 wherever their cells
    stand), from its nbgrader metadata."""
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
    return [found[ex] for ex in sorted(order, key=natural_key)]


_CONFIGS: dict[str, tuple[object, object]] = {}


def config(root: Path):
    """The course's nbgrader configuration (``nbgrader_config.py`` at ``root``), read once per process and
    read again when the file changes: a long-lived process (the formgrader's server, where nbgrader's
    *Autograde* grades) sees a due date or an extension set after it started."""
    key = str(Path(root).resolve())
    stamp = file_stamp(Path(key) / "nbgrader_config.py")  # None: no configuration file, nbgrader's defaults
    held = _CONFIGS.get(key)
    if held is None or held[0] != stamp:
        from traitlets.config import Config
        from traitlets.config.loader import PyFileConfigLoader

        cfg = Config()
        if stamp is not None:
            cfg.merge(PyFileConfigLoader("nbgrader_config.py", path=key).load_config())
        cfg.CourseDirectory.root = key
        held = _CONFIGS[key] = (stamp, cfg)
    return held[1]


@dataclass(frozen=True)
class Markers:
    """The lines that open and close a solution region and a hidden-test block: nbgrader's
    ``ClearSolutions`` and ``ClearHiddenTests`` delimiters, as the course configures them.  nbgrader
    treats a line that contains one as that marker; so does everything here."""
    begin_solution: str = "BEGIN SOLUTION"
    end_solution: str = "END SOLUTION"
    begin_hidden: str = "BEGIN HIDDEN TESTS"
    end_hidden: str = "END HIDDEN TESTS"

    def hides_tests(self, source: str) -> bool:
        return self.begin_hidden in source

    def is_secret(self, source: str) -> bool:
        """Whether ``source`` holds a solution region or a hidden-test block (what no learner sees)."""
        return self.begin_solution in source or self.begin_hidden in source

    def opens(self, line: str) -> bool:
        return self.begin_solution in line or self.begin_hidden in line

    def closes(self, line: str) -> bool:
        return self.end_solution in line or self.end_hidden in line

    def hidden_block(self, source: str) -> str:
        """The body of the hidden-test block of a test cell's ``source`` ('' where it has none)."""
        if self.begin_hidden not in source:
            return ""
        return source.split(self.begin_hidden, 1)[1].partition("\n")[2].split(self.end_hidden, 1)[0]


def markers(root: Path | None = None) -> Markers:
    """The course's markers (its ``nbgrader_config.py`` may set nbgrader's delimiters), else nbgrader's."""
    if root is None:
        return Markers()
    cfg = config(root)
    default = Markers()
    solutions, hidden = cfg.ClearSolutions, cfg.ClearHiddenTests
    return Markers(solutions.get("begin_solution_delimeter", default.begin_solution),
                   solutions.get("end_solution_delimeter", default.end_solution),
                   hidden.get("begin_test_delimeter", default.begin_hidden),
                   hidden.get("end_test_delimeter", default.end_hidden))


def directories(root: Path):
    """nbgrader's ``CourseDirectory`` for the course: the names of its folders, as the config sets them."""
    from nbgrader.coursedir import CourseDirectory

    return CourseDirectory(config=config(root))


def gradebook_url(root: Path) -> str:
    """The course's gradebook as nbgrader's own commands open it: ``CourseDirectory.db_url``, which the
    course's config may set and nbgrader otherwise puts at ``gradebook.db`` in the course root."""
    return directories(root).db_url


def sqlite_url(path: Path) -> str:
    """The URL of a gradebook file (a scratch one that nbgrader writes and the caller throws away)."""
    return f"sqlite:///{Path(path)}"


def gradebook_file(url: str) -> Path | None:
    """The file of a SQLite gradebook URL (None for another database)."""
    return Path(url.removeprefix("sqlite:///")) if url.startswith("sqlite:///") else None


def gradebook_students(url: str) -> set[str]:
    """The ids of the students nbgrader's gradebook at ``url`` knows (none where its file has not been made
    yet; it is not made here)."""
    path = gradebook_file(url)
    if path is not None and not path.is_file():
        return set()
    from nbgrader.api import Gradebook

    with Gradebook(url) as gb:
        return {s.id for s in gb.students}


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


def assignment_names(root: Path, names: list[str] | None) -> list[str]:
    """``names`` checked against the course's assignments (all of them when none is given); a name that
    is not one stops the command with the valid names."""
    from autograder.values.errors import UserError

    known = [a.name for a in assignments(root)]
    unknown = [n for n in names or [] if n not in known]
    if unknown:
        raise UserError(f"no assignment named {', '.join(unknown)} in {directories(root).source_directory}/: "
                        f"the assignments are {', '.join(known)}")
    return list(names) if names else known


def assignment_of_notebook(path: Path, root: Path | None = None) -> tuple[Assignment, str]:
    """Which assignment and notebook a notebook file belongs to: by its file name, or, for a renamed
    copy (``01_tensors (1).ipynb``, ``01_tensors-Copy1.ipynb``, ``01_Tensors.ipynb``) or a file whose
    cells are another notebook's, by its cells' nbgrader ids (:func:`identify`).
    Raises :class:`UserError` when neither says."""
    root = root or find_root()
    stem = Path(path).stem
    named = next(((a, stem) for a in assignments(root) if stem in a.notebooks()), None)
    try:
        ids = graded_ids(read_json(path))
    except (OSError, ValueError):  # unreadable here: the name decides (a corrupt file is reported by its reader)
        ids = set()
    if named is not None and (not ids or ids & _source_ids(named[0].solution(stem))):
        return named
    try:
        return identify(path, root)
    except UserError:
        if named is None:
            raise
        return named  # cells with no course id at all: the name is all there is to go by


def read_json(path: os.PathLike) -> dict:
    """A notebook file's JSON, unvalidated (raises ``ValueError`` when it is not a JSON object)."""
    import json

    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    return data


def graded_ids(nb) -> set[str]:
    """The nbgrader ``grade_id`` of every cell of ``nb`` (a notebook as parsed JSON or a ``NotebookNode``),
    read without trusting it: cells that are not objects and malformed metadata are ignored."""
    cells = nb.get("cells") if isinstance(nb, dict) else None
    if not isinstance(cells, list):
        return set()
    return {gid for gid in (grade_id(c) for c in cells if isinstance(c, dict)) if gid}


_SOURCE_IDS: dict[tuple[str, int, int], set[str]] = {}


def _source_ids(path: Path) -> set[str]:
    """The grade ids of a source notebook, read once per version of the file."""
    st = Path(path).stat()
    key = (str(Path(path).resolve()), st.st_mtime_ns, st.st_size)
    if key not in _SOURCE_IDS:
        _SOURCE_IDS[key] = graded_ids(read_json(path))
    return _SOURCE_IDS[key]


def identify(path_or_nb, root: Path | None = None) -> tuple[Assignment, str]:
    """Which course notebook a notebook's cells belong to, whatever its file is called.

    ``path_or_nb`` is a notebook file or a notebook already read (parsed JSON or a ``NotebookNode``).
    Its nbgrader ``grade_id`` set (:func:`graded_ids`, malformed metadata ignored) is compared with
    each source notebook's (``solutions/``, or ``.release/`` in a student pack): the notebook sharing
    the most ids is the one, when exactly one does.  Returns ``(assignment, notebook name)``.

    Raises :class:`UserError` (one line, naming no source folder) when the file is not notebook
    JSON, when no course notebook shares an id with it, or when two share as many.
    """
    root = root or find_root()
    if isinstance(path_or_nb, (str, os.PathLike)):
        label = str(path_or_nb)
        try:
            nb = read_json(path_or_nb)
        except (OSError, ValueError) as exc:
            raise UserError(f"{label} could not be read as a notebook ({exc})") from None
    else:
        label, nb = "this notebook", path_or_nb
    ids = graded_ids(nb)
    overlap = {}
    for a in assignments(root):
        for name in a.notebooks():
            try:
                shared = len(ids & _source_ids(a.solution(name)))
            except (OSError, ValueError):  # a broken source notebook cannot be the match; the others still can
                continue
            if shared:
                overlap[(a.name, name)] = (a, shared)
    if not overlap:
        raise UserError(f"{label} is not one of the course's notebooks: none of its cells carries the nbgrader "
                        "id of a course exercise (open the notebook you were given, or get a fresh copy with "
                        "`autograder release`)")
    best = max(shared for _, shared in overlap.values())
    top = sorted(key for key, (_, shared) in overlap.items() if shared == best)
    if len(top) > 1:
        raise UserError(f"{label} holds cells of several course notebooks ({', '.join(n for _, n in top)}): "
                        "check each notebook in its own file")
    return overlap[top[0]][0], top[0][1]


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
