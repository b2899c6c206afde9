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

And it bounds what the kernel holds of its own output.  ipykernel's stream keeps what a cell prints
in a buffer that its I/O thread sends every 0.2 s, and IPython keeps every printed string for the
kernel's whole life; a cell that prints in a tight loop filled both faster than the grader could
see the flood (gigabytes in a second), so it ended as a ``MemoryError`` in the learner's cell or as
the grader's "output past its limit", depending on the machine's speed.  Here a stream holding
:data:`HOLD` characters waits until they are sent, and IPython's record of outputs keeps nothing,
so the grader sees the flood and stops it, the same way on every machine.

Last, it imports :mod:`autograder.probe.trusted`, which takes the functions of torch and Python that hidden
tests read the learner's process with, before any cell of the learner's runs.
"""

import os
import sys
import warnings

START_DIR = os.getcwd()
HOLD = 1 << 18  # characters a stream may hold before a write waits for them to be sent


class _Forgotten(dict):
    """IPython's record of each cell's outputs (``HistoryManager.outputs``), kept empty: every
    lookup of a missing cell gives a fresh list that nothing keeps."""

    def __missing__(self, key):
        return []


def _forget_outputs() -> None:
    """IPython keeps every string a cell prints, and every display, in ``HistoryManager.outputs``
    for the kernel's whole life (for ``%notebook``); a grading kernel exports nothing, and a cell
    that prints in a loop would hold all it printed."""
    try:
        from IPython import get_ipython
    except ImportError:  # not an IPython kernel: nothing keeps outputs
        return
    shell = get_ipython()
    history = getattr(shell, "history_manager", None)
    if history is not None and hasattr(history, "outputs"):
        history.outputs = _Forgotten()


def _bounded(stream) -> None:
    """Make ``stream`` (ipykernel's ``OutStream``) wait for its I/O thread once it holds
    :data:`HOLD` characters, so that what it holds stays bounded.

    The check sits in ``_schedule_flush``, which every write calls, in a subclass of the stream's
    own class: IPython wraps and restores the instance's ``write`` around every cell (the one that
    runs this module too), so a ``write`` set here would not last.  A stream without the buffers this
    reads is left as it is."""
    base = type(stream)
    if not (hasattr(stream, "_buffers") and hasattr(stream, "_buffer_lock")
            and callable(getattr(base, "_schedule_flush", None)) and callable(getattr(base, "flush", None))):
        return

    class Bounded(base):
        def _schedule_flush(self):
            base._schedule_flush(self)
            with self._buffer_lock:
                held = sum(buffer.tell() for buffer in self._buffers.values())
            if held >= HOLD:
                self.flush()

    Bounded.__name__ = Bounded.__qualname__ = base.__name__
    stream.__class__ = Bounded


def _showwarning(message, category, filename, lineno, file=None, line=None):
    sys.stdout.write(warnings.formatwarning(message, category, filename, lineno, line))


warnings.showwarning = _showwarning
_forget_outputs()
for _stream in {id(s): s for s in (sys.stdout, sys.stderr)}.values():
    _bounded(_stream)
sys.stderr = sys.stdout
try:
    from autograder.probe import trusted  # noqa: F401 - taken now, before any learner code runs
except ImportError:  # an environment without torch: no hidden test could run in it either
    pass
