"""``autograder fmt``: strip outputs, execution counts and editor metadata from committed notebooks, so that
they diff cleanly (the form is :mod:`autograder.values.nbfmt`'s)."""

from __future__ import annotations

from pathlib import Path

from autograder.values import course, nbfmt


def run(args) -> int:
    paths = [Path(p) for p in args.notebooks]
    if not paths:
        root = course.find_root()
        paths = sorted((root / "solutions").glob("*/*.ipynb")) + sorted((root / "notebooks").glob("*/*.ipynb"))
    changed = [p for p in paths if nbfmt.format_file(p, check=args.check)]
    for p in changed:
        print(("would reformat " if args.check else "reformatted ") + str(p))
    return 1 if (args.check and changed) else 0
