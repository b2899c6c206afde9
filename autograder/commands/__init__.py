"""One module per command of ``python -m autograder``, named after it; each has ``run(args) -> int``
(:mod:`autograder.cli` parses the arguments and calls it).  :mod:`.autograde` is nbgrader's own
``autograde`` command, as the course configures it: it runs :mod:`.grade` in nbgrader's process.

May import: every zone below it, and another command's module.
"""

MAY_IMPORT: tuple[str, ...] = ('values', 'probe', 'sandbox', 'gradepath', 'grading', 'adapters', 'hub')
