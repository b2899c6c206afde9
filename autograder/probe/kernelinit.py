"""Imported at kernel start when grading: harmless messages go to stdout, not stderr.

nbgrader scores a test cell 0 when it wrote to stderr.  PyTorch warns often
(deprecations, performance hints) and logs through ``logging`` to stderr
(Dynamo's graph-break and recompilation messages, for instance); neither is a
failure.  Python-level stderr is therefore sent to stdout in grading kernels.
A failure still raises, which IPython reports as an error output (not a stderr
stream), and an error output scores 0.

It also notes the folder the kernel started in (:data:`START_DIR`): a notebook may change its
working folder (notebook 07 does), and stock nbgrader's local mode finds the course from where
the kernel started (:mod:`autograder.probe.local_reference`).
"""

import os
import sys
import warnings

START_DIR = os.getcwd()


def _showwarning(message, category, filename, lineno, file=None, line=None):
    sys.stdout.write(warnings.formatwarning(message, category, filename, lineno, line))


warnings.showwarning = _showwarning
sys.stderr = sys.stdout
