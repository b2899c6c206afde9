"""Where grading time goes: named phases that cost nothing unless a recorder listens.

The package marks its units of work (``unit("job", ...)``, ``unit("reference", ...)``) and the
phases inside them (``phase("grader: merge ...")``).  Without a recorder both do nothing.  The
benchmark's profile (``benchmarks/grading_profile.py``) installs one, so a renamed function cannot
silently empty the profile: the phases are named here, where the work is.
"""

from __future__ import annotations

import contextlib
import time

_RECORDER = None


def install(recorder) -> None:
    """Send every phase to ``recorder`` (``add(phase, seconds)`` and a ``unit(kind, labels)`` context);
    None stops."""
    global _RECORDER
    _RECORDER = recorder


def listening() -> bool:
    """Whether a recorder listens (a measurement that costs something is made only then)."""
    return _RECORDER is not None


def record(name: str, seconds: float) -> None:
    """A phase timed by the caller (one that does not fit a ``with`` block)."""
    if _RECORDER is not None:
        _RECORDER.add(name, seconds)


@contextlib.contextmanager
def phase(name: str):
    if _RECORDER is None:
        yield
        return
    start = time.perf_counter()
    try:
        yield
    finally:
        _RECORDER.add(name, time.perf_counter() - start)


@contextlib.contextmanager
def unit(kind: str, **labels):
    if _RECORDER is None:
        yield
        return
    with _RECORDER.unit(kind, labels):
        yield
