"""The wire between the trusted grader and a learner's kernel: every spelling both ends must agree on.

The grader never imports the learner's kernel and the kernel side (:mod:`autograder.probe`) never
imports the grader; what crosses between them is written here once:

* :data:`KERNEL_ARGS`: how every kernel starts (nbgrader's ``Execute.extra_arguments`` in the course's
  ``nbgrader_config.py`` and in a student pack's, and the grader's default for a course without one);
* :data:`MIME`: the display output that carries a hidden test's observations out of the kernel;
* :func:`call`: the source of a call the grader sends the kernel (a function of the kernel side,
  called with literal arguments), the one way the grader asks the kernel to do anything.

Nothing here imports anything: the kernel side reads it too.
"""

from __future__ import annotations

KERNEL_ARGS = (
    "--HistoryManager.hist_file=:memory:",
    "--IPKernelApp.exec_lines=import autograder.probe.kernelinit",
)
MIME = "application/vnd.autograder.observations+json"


def call(function: str, *args: object) -> str:
    """The source of ``function(*args)`` for a kernel, ``function`` spelled in full
    (``"autograder.probe.arm"``) and every argument a literal (its ``repr`` reads back as itself)."""
    module, _, name = function.rpartition(".")
    path = module.split(".")
    return f"__import__({module!r}).{'.'.join(path[1:] + [name])}({', '.join(repr(a) for a in args)})"
