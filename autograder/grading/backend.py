"""Where a batch's jobs run, behind one declared interface: this machine (:class:`~autograder.grading.workers.
LocalBackend`: this process or a pool of workers) or a Slurm cluster (:class:`~autograder.grading.slurm.
SlurmBackend`).  The ``grade`` run drives a :class:`Backend` and never knows which one it holds."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Protocol


class Backend(Protocol):
    """A context manager that runs references and jobs, wherever they run."""

    workers: int  # jobs at once

    def __enter__(self) -> "Backend": ...

    def __exit__(self, *exc) -> None: ...

    def references(self, notebooks: list, sandbox: bool) -> dict:
        """Each ``(NotebookData, seed)``'s :class:`~autograder.values.records.Reference`, by the data's key."""

    def run(self, jobs: list, on_output: Callable) -> None:
        """Grade every job, handing each :class:`~autograder.grading.jobs.JobOutput` to ``on_output(job,
        output)`` in this process as it arrives."""


def open_backend(kind: str, workers: int, root: Path, slurm=None) -> Backend:
    """The backend named ``kind`` (``local`` or ``slurm``, with its :class:`~autograder.grading.slurm.
    SlurmOptions`)."""
    if kind == "slurm":
        from autograder.grading.slurm import SlurmBackend

        return SlurmBackend(slurm, root / ".autograder" / "submitit")
    from autograder.grading.workers import LocalBackend

    return LocalBackend(workers)
