"""``autograder demo`` (``make demo``): the main job on the sample submissions, in a course of its own.

The samples (``examples/submissions``: alice, bob, carol and dave) are no class's students.  Graded into the
course's own gradebook, they stayed in everything an instructor does after (grade's warnings, the report's
counts, the export's rows, a copy per student at every exchange release).  So the demo runs in a private copy
of the course, ``demo/`` in the course folder (git-ignored): this course's ``solutions/`` and
``nbgrader_config.py``, copied afresh at every run, with a gradebook, ``.autograder/``, ``autograded/``,
``feedback/`` and an exchange of its own, which its configuration names explicitly, after everything the
course's configuration says.  There it does the main job, each step the course's own command run in the
copy: ``release``, ``grade`` the samples (every one on the default variant, as they were written), print the
scores, ``feedback`` and ``export``.  It says where first and last; the course folder itself is never written,
but for ``demo/``.  A rerun keeps what is graded already, as ``grade`` does.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from autograder.adapters.generate import tool_env
from autograder.values import course
from autograder.values.errors import UserError

FOLDER = "demo"
MARK = ".autograder-demo"  # what says a folder is the demo's own, refreshed at every run
SAMPLES = Path("examples") / "submissions"
_OWN = '''
# autograder demo: this copy of the course is the demo's own. Whatever the course's settings above say, its
# gradebook and exchange are its own, so that the sample students reach no class (autograder.commands.demo).
c.CourseDirectory.root = {root!r}
c.CourseDirectory.db_url = {db!r}
c.Exchange.root = {exchange!r}
'''


def prepare(root: Path, demo: Path) -> None:
    """Make ``demo`` the demo's copy of the course at ``root``: its solutions and configuration copied afresh,
    what the demo made there before (its gradebook, results, feedback) kept."""
    if demo.exists() and not (demo / MARK).is_file():
        raise UserError(f"{demo} exists and is not the demo's own (it has no {MARK}): move it away, or give the "
                        "demo another folder with --to")
    demo.mkdir(parents=True, exist_ok=True)
    (demo / MARK).write_text("A private copy of the course for `autograder demo` (make demo), made again at every "
                             "run: its solutions/ and nbgrader_config.py are the course's, its gradebook its own.\n")
    source = course.folder(root, "source")
    shutil.rmtree(demo / source.relative_to(root), ignore_errors=True)
    course.copy_course(root, demo, parts=("source",))
    with open(demo / "nbgrader_config.py", "a", encoding="utf-8") as f:
        f.write(_OWN.format(root=str(demo), db=course.sqlite_url(demo / "gradebook.db"),
                            exchange=str(demo / "exchange")))


def run(args) -> int:
    root = course.find_root()
    demo = Path(args.to).resolve() if getattr(args, "to", None) else root / FOLDER
    samples = root / SAMPLES
    if not samples.is_dir():
        raise UserError(f"no sample submissions in {samples}: the demo grades them")
    names = course.assignment_names(root, args.assignments or None)
    if demo == root or (root in demo.parents and demo != root / FOLDER):
        raise UserError(f"{demo} is inside the course: give the demo a folder outside it with --to")
    prepare(root, demo)
    print(f"demo: in {demo}, a private copy of the course with its own gradebook; the samples reach no class, "
          f"and the course in {root} is not touched", flush=True)
    env = tool_env()
    env["AUTOGRADER_COURSE_ROOT"] = str(demo)  # every step works in the copy, whatever the caller's setting
    workers = ["--workers", str(args.workers)] if getattr(args, "workers", None) else []
    steps = [["release", *names],
             ["grade", *names, "--submissions", str(samples), "--default-variant", *workers],
             ["feedback", *names],
             ["export", "--to", str(demo / "grades.csv")]]
    for step in steps:
        print(f"demo: autograder {step[0]}", flush=True)
        done = subprocess.run([sys.executable, "-m", "autograder", *step], cwd=demo, env=env)
        if done.returncode != 0:
            raise UserError(f"the demo stopped at `autograder {step[0]}` (exit status {done.returncode}); what it "
                            f"said is above", done.returncode)
    print(f"demo: done, in {demo}: scores above, feedback in {demo / 'feedback'}/, the export in "
          f"{demo / 'grades.csv'}; remove the folder to start the demo afresh")
    return 0
