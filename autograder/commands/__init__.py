"""One module per command of ``python -m autograder``, named after it; each has ``run(args) -> int``
(:mod:`autograder.cli` parses the arguments and calls it).

May import: every zone below it, and another command's module.
"""

MAY_IMPORT: tuple[str, ...] = ('values', 'probe', 'sandbox', 'shortrun', 'grading', 'adapters')
