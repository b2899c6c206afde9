"""Imported at kernel start when grading: harmless warnings go to stdout, not stderr.

nbgrader scores a test cell 0 when it wrote to stderr.  PyTorch warns often
(deprecations, performance hints); a warning is not a failure, so it is printed
on stdout instead.  Exceptions still produce an error output and score 0.
"""

import sys
import warnings


def _showwarning(message, category, filename, lineno, file=None, line=None):
    sys.stdout.write(warnings.formatwarning(message, category, filename, lineno, line))


warnings.showwarning = _showwarning
