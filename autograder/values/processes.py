"""Signalling a process by its pid without hitting another: the one way the grader and the class server
end a process they listed (a kernel, a sandbox user id's processes, what a person's server or a hub left).

A pid listed a moment ago may have ended and been reused by any process of the machine; a pidfd taken
before checking that the process is still the one meant holds on to that process alone.
"""

from __future__ import annotations

import os
import signal
from typing import Callable


def signal_if(pid: int, still: Callable[[int], bool], sig: int) -> bool:
    """Send ``sig`` to ``pid`` only while ``still(pid)`` holds; whether it was sent.  Through a pidfd taken
    before the check, so a pid that ends and is reused meanwhile (by any process of the machine) is never hit."""
    try:
        fd = os.pidfd_open(pid)
    except OSError:  # gone already
        return False
    try:
        if not still(pid):
            return False
        signal.pidfd_send_signal(fd, sig)
        return True
    except OSError:  # it ended between the two
        return False
    finally:
        os.close(fd)
