"""The term's hidden-test seeds: one per assignment, drawn once and kept with the instructor's files.

Hidden tests draw their inputs from a seed.  Drawn afresh for every ``grade`` run, two batches of
one assignment would be judged by different tests, and a late student would pay a fresh reference
run.  So each assignment's seed is drawn the first time it is graded and kept in
``.autograder/seeds.json`` beside the gradebook (never in a release, a handout pack or feedback);
``grade --new-seed`` draws a new one for the assignments it grades, which regrades them, and
``grade --seed N`` grades one run with N without keeping it.

Each assignment's secret for per-student variants (:func:`variant_secret`) is kept beside them, in
``.autograder/variant_seeds.json``, and is never rotated.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from autograder.values.files import write_atomic


def _path(root: Path) -> Path:
    return Path(root) / ".autograder" / "seeds.json"


def draw() -> int:
    return random.SystemRandom().randrange(1, 2**31 - 1)


def _read(root: Path) -> dict[str, int]:
    try:
        found = json.loads(_path(root).read_text())
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        from autograder.values.errors import UserError

        raise UserError(f"{_path(root)} does not read ({exc}): restore it from a backup, or move it away to "
                        "draw new seeds (every assignment is then regraded)") from None
    return {str(k): int(v) for k, v in found.items()} if isinstance(found, dict) else {}


def term_seeds(root: Path, assignments: list[str], rotate: bool = False) -> dict[str, int]:
    """Each assignment's seed for the term, drawing (and keeping) any that is missing, or all with ``rotate``."""
    seeds = _read(root)
    fresh = {a: draw() for a in assignments if rotate or a not in seeds}
    if fresh:
        seeds.update(fresh)
        write_atomic(_path(root), json.dumps(seeds, indent=1, sort_keys=True))
    return {a: seeds[a] for a in assignments}


def _variant_path(root: Path) -> Path:
    return Path(root) / ".autograder" / "variant_seeds.json"


def drawn_variant_secret(root: Path, assignment: str) -> bytes | None:
    """The assignment's secret for per-student variants where one was drawn (None: no student was handed a
    variant of their own), read without drawing one."""
    try:
        found = json.loads(_variant_path(root).read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return variant_secret(root, assignment)  # says in one line what to do about it
    text = found.get(assignment) if isinstance(found, dict) else None
    return bytes.fromhex(text) if isinstance(text, str) else None


def variant_secret(root: Path, assignment: str) -> bytes:
    """The assignment's secret for per-student variants (:mod:`autograder.values.variants`), drawn the first
    time anything needs it and kept beside the hidden-test seeds.  Apart from them on purpose: a variant is
    fixed once a student holds it, so ``grade --new-seed`` never changes it, and nothing else rotates it."""
    path = _variant_path(root)
    try:
        found = json.loads(path.read_text())
    except FileNotFoundError:
        found = {}
    except (OSError, ValueError) as exc:
        from autograder.values.errors import UserError

        raise UserError(f"{path} does not read ({exc}): restore it from a backup (the students' variants are "
                        "drawn from it, and new secrets would change every one)") from None
    found = found if isinstance(found, dict) else {}
    if not isinstance(found.get(assignment), str):
        found[assignment] = random.SystemRandom().getrandbits(256).to_bytes(32, "big").hex()
        write_atomic(path, json.dumps(found, indent=1, sort_keys=True)).chmod(0o600)  # the instructor's alone
    return bytes.fromhex(found[assignment])
