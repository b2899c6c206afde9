"""``autograder handout``: the student pack, everything a learner needs and nothing a grader hides.

A pack holds the released notebooks with their support files, a pristine copy of each under
``.release/`` (what ``check`` compares an edited notebook with), the ``autograder`` package
(the learner side: ``check``, ``progress``, the kernel set-up; it holds no course content),
the install files, an ``nbgrader_config.py`` whose source folder is ``.release`` and a short
README.  It holds no ``solutions/``, no hidden test, no solution region and no reference
data: every notebook in it is nbgrader's own release (``generate_assignment``), and
:func:`leaks` scans a pack for any line of a solution region or hidden-test block.

Where notebooks have per-student variants (:mod:`autograder.values.variants`) a pack is one student's
(``--student``, or ``--roster`` for one ``STUDENT.zip`` each): its notebooks and their pristine copies hold
that student's variant, the one ``grade`` draws again from the student id.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import zipfile
from pathlib import Path

from autograder import PACKAGE_DIR
from autograder.adapters import generate, release_folder
from autograder.adapters import lms_roster
from autograder.adapters.exchange import make_own
from autograder.values import course, learner_view, support, variants
from autograder.values.errors import UserError

PRISTINE = ".release"

CONFIG = '''"""A student pack of the course: notebooks/ is yours to edit; .release/ keeps the notebooks as handed out."""
import os

c = get_config()  # noqa: F821 - provided by nbgrader

c.CourseDirectory.root = os.path.dirname(os.path.abspath(__file__))
c.CourseDirectory.course_id = "pytorch-course"
c.CourseDirectory.source_directory = ".release"
c.CourseDirectory.release_directory = "notebooks"
# what ships beside a notebook is the files it lists (autograder.values.support), nothing else of .release/
from autograder.values.support import nbgrader_ignores  # noqa: E402

c.CourseDirectory.ignore = nbgrader_ignores(c.CourseDirectory.root, ".release")
c.Execute.timeout = 300
from autograder.values.wire import KERNEL_ARGS  # noqa: E402

c.Execute.extra_arguments = list(KERNEL_ARGS)
# Validate says in one line that an exercise is not attempted yet (autograder.adapters.validate)
from autograder.adapters.validate import HOOKS  # noqa: E402

for _hook, _call in HOOKS.items():
    setattr(c.Execute, _hook, _call)
# an answer cell handed out with a planted bug keeps it when a notebook is released again, and your own work in
# notebooks/ is kept beside the fresh release (autograder.adapters.converters)
from autograder.adapters.converters import KeepLearnersWork  # noqa: E402
from autograder.values.learner_view import generate_steps  # noqa: E402

c.GenerateAssignment.preprocessors = generate_steps() + [KeepLearnersWork]
'''

README = """# PyTorch course: your notebooks

{listing}

## Set up (once)

```bash
python3 -m venv .venv
.venv/bin/pip install -e .          # torch, JupyterLab, nbgrader and the course's checker
```

(With conda: `conda env create -f environment.yml`, then `conda activate pytorch-course`.)

## Work

```bash
.venv/bin/jupyter lab notebooks/
```

Each exercise has an answer cell (replace the `raise NotImplementedError`) and a locked test
cell below it: run it to check your answer. The **Validate** button runs the whole notebook the
way the grader does.

## Check before you hand in

```bash
.venv/bin/python -m autograder check notebooks/01_tensors/01_tensors.ipynb
.venv/bin/python -m autograder progress          # every notebook at once
```

These run the **visible** tests. The hidden tests, which decide the grade, are run by your
instructor; they check the same concepts on other inputs, so a correct answer passes both.

## Start a notebook again

```bash
.venv/bin/python -m autograder release 01_tensors   # a fresh notebooks/01_tensors/
```

Your own copy is never lost: if you changed it, it is first renamed to
`01_tensors.mine-TIME.ipynb` beside the fresh one (the command prints where), and `check`
still recognises it.

## Hand in

Hand in the notebook file itself (`notebooks/NN_topic/NN_topic.ipynb`), as your course says:
through JupyterLab's *Assignment List* (nbgrader's *Submit*) or by uploading the file to your
course's site. Do not rename it.
"""


def variant_notebooks(names: list[str], root: Path) -> list[str]:
    """The notebooks among the assignments ``names`` that have per-student variants (``ASSIGNMENT/NOTEBOOK``)."""
    found = []
    for name in names:
        a = course.Assignment(name, root)
        found += [f"{name}/{nb}" for nb in a.notebooks() if variants.params(course.read(a.solution(nb)))]
    return found


def write_pack(names: list[str] | None, to: Path, root: Path | None = None, student: str | None = None,
               default_variant: bool = False) -> Path:
    """Write the student pack for ``names`` (all assignments by default) to the folder or ``.zip`` ``to``:
    ``student``'s pack, where notebooks have per-student variants.  A pack for nobody in particular of
    such notebooks is written only with ``default_variant`` (self-study): handed to a class, it would have
    every student answer another variant than the one they are graded on."""
    root = root or course.find_root()
    names = course.assignment_names(root, names)
    if student is None and not default_variant:
        having = variant_notebooks(names, root)
        if having:
            raise UserError(f"{', '.join(having)} give each student their own variant: write one pack per student "
                            "(--student ID, or --roster FILE), or --default-variant for a self-study pack")
    to = Path(to)
    if to.suffix == ".zip":
        if to.exists() or to.is_symlink():
            raise UserError(f"{to} exists (a pack already written, or a file of yours): move it away to write it "
                            "again, or name another file with --to")
        with tempfile.TemporaryDirectory() as tmp:
            folder = _fill(Path(tmp) / "pack", names, root, student)
            to.parent.mkdir(parents=True, exist_ok=True)
            with zipfile.ZipFile(to, "w", zipfile.ZIP_DEFLATED) as z:
                for p in sorted(folder.rglob("*")):
                    if p.is_file():
                        z.write(p, Path(to.stem) / p.relative_to(folder))
        return to
    if to.exists() and (not to.is_dir() or any(to.iterdir())):
        raise UserError(f"{to} exists and is not an empty folder: name a new folder (or a .zip) with --to")
    return _fill(to, names, root, student)


def _fill(dest: Path, names: list[str], root: Path, student: str | None = None) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        # nbgrader's own generate_assignment, fresh from solutions/: never a copy a learner may have edited
        generate.generate(names, root, Path(tmp), db_url=course.sqlite_url(Path(tmp) / "gradebook.db"))
        for name in names:
            src = Path(tmp) / name
            if student is not None:  # the student's own variant, in the notebook and in its pristine copy
                make_own(src, root, name, student)
            shutil.copytree(src, dest / "notebooks" / name, ignore=shutil.ignore_patterns("__pycache__"))
            shutil.copytree(src, dest / PRISTINE / name, ignore=shutil.ignore_patterns("__pycache__"))
            # what this release wrote, so that `autograder release` in the pack keeps a learner's edits aside
            release_folder.write_record(dest / "notebooks", {name: release_folder.fingerprints(src)})
    shutil.copytree(PACKAGE_DIR, dest / "autograder", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for f in ("pyproject.toml", "environment.yml"):
        if (root / f).is_file():
            shutil.copy(root / f, dest / f)
    (dest / "nbgrader_config.py").write_text(CONFIG)
    listing = "\n".join(f"- `notebooks/{n}/`" for n in names)
    if student is not None:
        listing += (f"\n\nThis pack is {student}'s. Where an exercise says *your variant*, its numbers were "
                    "drawn for you: answer with the names it gives, never with a classmate's numbers.")
    (dest / "README.md").write_text(README.format(listing=listing))
    return dest


def secret_lines(root: Path) -> set[str]:
    """Every line of six characters or more (comments aside) of the course's solution regions and
    hidden-test blocks that a learner could not read elsewhere: lines that the released notebooks, the
    support files they list or the ``autograder`` package also hold (an ``optimizer.step()`` the prose
    shows too) are left out."""
    found: set[str] = set()
    public: list[str] = []
    marks = course.markers(root)
    for a in course.assignments(root):
        for name in a.notebooks():
            solution = course.read(a.solution(name))
            public += [cell.source for cell in learner_view.pristine_release(solution, root).cells]
            public += variants.planted_sources(solution, marks)  # each bug is some student's handout
            for cell in solution.cells:
                inside = False
                for line in cell.source.splitlines():
                    text = line.strip()
                    if marks.opens(text):
                        inside = True
                        continue
                    if marks.closes(text):
                        inside = False
                        continue
                    if inside and len(text) >= 6 and not text.startswith("#"):
                        found.add(text)
        public += [(a.solution_dir / f).read_text(errors="replace") for f in support.listed(a.solution_dir)]
    public += [f.read_text(errors="replace") for f in Path(PACKAGE_DIR).rglob("*.py")]
    text = "\n".join(public)
    return {line for line in found if line not in text}


def leaks(pack: Path, root: Path) -> list[str]:
    """The files of a pack (a folder or a .zip) holding a line of a solution region or hidden-test block:
    every file is read whole, whatever its name or kind (an archive inside the pack is read as it is
    stored, not unpacked)."""
    secrets = secret_lines(root)
    texts: dict[str, str] = {}
    pack = Path(pack)
    if pack.suffix == ".zip":
        with zipfile.ZipFile(pack) as z:
            for info in z.infolist():
                texts[info.filename] = z.read(info).decode("utf-8", "replace")
    else:
        for p in pack.rglob("*"):
            if p.is_file():
                texts[str(p.relative_to(pack))] = p.read_text(errors="replace")
    found = []
    for name, text in texts.items():
        hit = next((line for line in secrets if line in text), None)
        if hit is not None:
            found.append(f"{name}: {hit[:80]}")
    return found


def run(args) -> int:
    root = course.find_root()
    if getattr(args, "roster", None):
        if getattr(args, "student", None):
            raise UserError("give --student or --roster, not both")
        folder = Path(args.to)
        if folder.suffix == ".zip" or (folder.exists() and not folder.is_dir()):
            raise UserError(f"with --roster, --to names a folder: one STUDENT.zip per student goes in it ({folder} is not)")
        students = lms_roster.read(args.roster).students
        kept = []
        for student in students:
            pack = folder / f"{student}.zip"
            if pack.exists() or pack.is_symlink():
                print(f"kept {pack} (already written; move it away to write it again)")
                kept.append(student)
                continue
            _kept(write_pack(args.assignments or None, pack, root, student), root)
        print(f"wrote the student packs of {len(students) - len(kept)} student(s) in {folder}"
              + (f"; {len(kept)} already there were kept as they were" if kept else ""))
        return 0
    student = getattr(args, "student", None)
    if student is not None:
        _say_if_unknown(root, student)
    to = _kept(write_pack(args.assignments or None, Path(args.to), root, student,
                          getattr(args, "default_variant", False)), root)
    print(f"wrote the student pack {to}")
    return 0


def _say_if_unknown(root: Path, student: str) -> None:
    """A warning when ``student`` is not in the gradebook: a misspelt id draws another student's variants."""
    known = course.gradebook_students(course.gradebook_url(root))
    if known and student not in known:
        print(f"warning: {student} is not a student of the gradebook (a misspelt id? nbgrader db student add "
              f"{student} if it is right): the pack holds the variants drawn for this id", file=sys.stderr)


def _kept(to: Path, root: Path) -> Path:
    """``to``, scanned for solution and hidden-test lines; removed, and the command stopped, where it holds any."""
    problems = leaks(to, root)
    if problems:
        if to.is_dir():
            shutil.rmtree(to)
        else:
            to.unlink()
        raise SystemExit("the pack holds solution or hidden-test lines (not handed out):\n" + "\n".join(problems))
    return to
