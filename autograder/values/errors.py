"""A person's mistake, said in one line: what is wrong and what to do.

Commands raise :class:`UserError` for anything a user can cause and fix (a wrong name, a command
run in the wrong folder, a file that is not what it should be); :func:`autograder.cli.main`
prints its message as one line on stderr and exits with its code, never with a traceback.
Everything else that goes wrong is a fault of the grader and keeps its traceback.
"""

from __future__ import annotations


class UserError(Exception):
    """What is wrong and what to do, for the person who ran the command."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code
