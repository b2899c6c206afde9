"""``autograder release``: regenerate ``notebooks/`` from ``solutions/`` with nbgrader's
``generate_assignment`` (:mod:`autograder.adapters.generate`).

Learners edit ``notebooks/`` in place, so writing a release there never loses their work: :func:`release`
keeps aside every file that differs from what the last release wrote (its record, ``notebooks/.release.json``)
before putting the fresh one in its place, by the rule nbgrader's own ``generate_assignment`` (the formgrader's
*Generate*) follows in this course too (:mod:`autograder.adapters.release_folder`).
"""


from __future__ import annotations

import tempfile
import time
from pathlib import Path

from autograder.adapters.generate import generate
from autograder.adapters.release_folder import bring_back, fingerprints, install, keep_handed_out, read_record, \
    write_record
from autograder.values import course
from autograder.values.files import ASIDE_TIME


def release(names: list[str] | None = None, root: Path | None = None, report=None) -> list[str]:
    """Regenerate ``notebooks/NAME`` for the given assignments (all by default), never losing a learner's work.

    nbgrader writes the release into a scratch folder; each of its files then replaces the one in
    ``notebooks/NAME`` only where that file is what the last release wrote (``.release.json``) or holds
    the same cells as the new one (outputs and execution counts do not count).  A file that differs,
    a notebook a learner has worked in, is first renamed ``STEM.mine-TIME.SUFFIX`` beside it and
    ``report`` (a callable taking one line) is told where.  Files the release does not write, such as
    a learner's own, are left alone; one the last release wrote and this one does not is removed
    when unchanged.  Running it again changes nothing.
    """
    root = root or course.find_root()
    names = course.assignment_names(root, names)
    say = report or (lambda line: None)
    dest_root = course.folder(root, "release")
    stamp = time.strftime(ASIDE_TIME)
    with tempfile.TemporaryDirectory() as tmp:
        fresh_root = Path(tmp) / "release"
        generate(names, root, fresh_root, db_url=course.gradebook_url(root))
        for name in names:
            bring_back(dest_root / name)  # a folder a Generate that stopped half-way left set aside
            recorded = read_record(dest_root).get(name)
            keep_handed_out(dest_root / name, recorded, root, name)
            for line in install(fresh_root / name, dest_root / name, recorded, stamp, root):
                say(line)
            write_record(dest_root, {name: fingerprints(fresh_root / name)})
    return names


def run(args) -> int:
    names = release(args.assignments or None, report=print)
    print("released: " + ", ".join(f"notebooks/{n}" for n in names))
    return 0
