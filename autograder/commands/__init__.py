"""One module per command of ``python -m autograder``, named after it; each has ``run(args) -> int``
(:mod:`autograder.cli` parses the arguments and calls it).  What nbgrader's own commands run, as the
course configures them (its ``autograde``, its export, its feedback), is in :mod:`autograder.adapters`.

May import: every zone below it, and another command's module.
"""

MAY_IMPORT: tuple[str, ...] = ('values', 'probe', 'sandbox', 'gradepath', 'grading', 'adapters', 'hub')
