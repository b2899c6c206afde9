"""The execution seam: run one notebook in a fresh Jupyter kernel and return it with outputs.

Everything that runs learner code goes through :func:`execute`.  The sandbox
(:mod:`autograder.sandbox`) wraps the kernel process; the caller decides what
the verdicts are from the outputs, outside the kernel.
"""

from __future__ import annotations

import copy
import json
import os
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

KERNEL_ARGS = [
    "--HistoryManager.hist_file=:memory:",
    "--IPKernelApp.exec_lines=import autograder.kernelinit",
]


@dataclass
class Limits:
    """Resource limits for one notebook run (see docs/security.md)."""

    cell_timeout: float = 300.0  # seconds of wall clock per cell
    notebook_timeout: float = 900.0  # seconds of wall clock for the whole notebook
    startup_timeout: float = 60.0  # seconds for the kernel to start
    memory_mb: int = 6144  # address space of the kernel process tree
    max_processes: int = 256  # processes and threads of the sandbox user
    max_file_mb: int = 256  # largest file the notebook may write
    max_output_kb: int = 1024  # stream and display output kept per cell

    @classmethod
    def from_env(cls) -> "Limits":
        lim = cls()
        for f in lim.__dataclass_fields__:
            v = os.environ.get(f"AUTOGRADER_LIMIT_{f.upper()}")
            if v:
                setattr(lim, f, type(getattr(lim, f))(v))
        return lim


@dataclass
class ExecResult:
    nb: nbformat.NotebookNode
    error: str | None = None  # why the run stopped early (kernel died, timeout, ...)
    executed: int = 0  # number of code cells that finished
    seconds: float = 0.0
    log: list[str] = field(default_factory=list)


def limited_client_class():
    """An nbclient ``NotebookClient`` that keeps at most ``output_budget`` bytes of output per cell.

    Output past the budget is dropped as it arrives (so a flood cannot fill the
    grader's memory); past 16 times the budget the cell is stopped.
    """
    from nbclient import NotebookClient

    class LimitedNotebookClient(NotebookClient):
        output_budget = 1 << 20

        flooded = 0

        def start_cell_budget(self) -> None:
            self._used, self._dropped, self._noted = 0, 0, False

        def output(self, outs, msg, display_id, cell_index):
            size = len(json.dumps(msg.get("content", {}), default=str))
            if self._used + size > self.output_budget:
                self._dropped += size
                if not self._noted:
                    self._noted = True
                    outs.append(nbformat.v4.new_output(
                        "stream", name="stdout",
                        text=f"\n... output past {self.output_budget >> 10} KiB dropped ...\n"))
                if self._dropped > 16 * self.output_budget and not self.flooded:
                    # stop the flood at its source: the dead kernel ends the cell at once
                    self.flooded = self._used + self._dropped
                    pid = getattr(getattr(self.km, "provisioner", None), "pid", None)
                    if pid:
                        try:
                            os.kill(pid, signal.SIGKILL)
                        except OSError:
                            pass
                return None
            self._used += size
            return super().output(outs, msg, display_id, cell_index)

    return LimitedNotebookClient


def _env(extra: dict[str, str]) -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    env["PYTHONWARNINGS"] = env.get("PYTHONWARNINGS", "")
    env.update(extra)
    return env


def execute(nb: nbformat.NotebookNode, cwd: os.PathLike, *, env: dict[str, str] | None = None,
            limits: Limits | None = None, sandbox: "object | None" = None) -> ExecResult:
    """Run ``nb`` top to bottom in a fresh kernel with working directory ``cwd``.

    Never raises for what the notebook does: a cell error stays in that cell's
    outputs, and a dead or hung kernel ends the run with ``ExecResult.error`` set,
    keeping the outputs of every cell that finished before.
    """
    from nbclient.exceptions import CellTimeoutError, DeadKernelError

    limits = limits or Limits()
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    km_kwargs = {}
    if sandbox is not None:
        km_kwargs = sandbox.kernel_manager_kwargs(Path(cwd), limits)
    client = limited_client_class()(
        nb,
        timeout=limits.cell_timeout,
        startup_timeout=max(1, int(limits.startup_timeout)),
        kernel_name="python3",
        allow_errors=True,
        interrupt_on_timeout=False,
        record_timing=False,
        # every output is in by now: kill the kernel instead of waiting for it to wind down
        shutdown_kernel="immediate",
        extra_arguments=KERNEL_ARGS,
        resources={"metadata": {"path": str(cwd)}},
        **km_kwargs,
    )
    if sandbox is not None:
        client.kernel_manager_class = sandbox.kernel_manager_class
    client.output_budget = limits.max_output_kb * 1024

    def on_executed(cell, cell_index, execute_reply):
        # a kernel that hides its tracebacks still answers 'error': record it
        content = (execute_reply or {}).get("content", {})
        if content.get("status") == "error" and not any(o.get("output_type") == "error" for o in cell.outputs):
            _append_error(cell, str(content.get("ename", "Error"))[:100], str(content.get("evalue", ""))[:400])

    client.on_cell_executed = on_executed
    result = ExecResult(nb)
    start = time.monotonic()
    deadline = start + limits.notebook_timeout
    try:
        with client.setup_kernel(env=_env(env or {}), cwd=str(cwd), stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL):
            for index, cell in enumerate(nb.cells):
                if cell.cell_type != "code":
                    continue
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    result.error = f"notebook time limit of {limits.notebook_timeout:.0f} s reached"
                    break
                client.timeout = max(1, int(min(limits.cell_timeout, remaining)))
                client.start_cell_budget()
                try:
                    client.execute_cell(cell, index)
                except CellTimeoutError:
                    _append_error(cell, "CellTimeoutError",
                                  f"cell ran longer than {client.timeout:.0f} s and was stopped")
                    result.error = f"a cell ran past its time limit ({client.timeout:.0f} s)"
                    break
                except DeadKernelError:
                    if client.flooded:
                        _append_error(cell, "OutputLimitExceeded",
                                      f"the cell printed more than {client.flooded >> 10} KiB and was stopped")
                        result.error = f"a cell's output passed its limit ({limits.max_output_kb} KiB) and was stopped"
                    else:
                        _append_error(cell, "DeadKernelError", "the kernel died while running this cell")
                        result.error = "the kernel died (crash, os._exit, or a resource limit)"
                    break
                result.executed += 1
    except (RuntimeError, TimeoutError, DeadKernelError, OSError) as exc:
        if result.error is None:
            result.error = f"the kernel could not run the notebook: {type(exc).__name__}: {exc}"[:500]
    except Exception as exc:  # nbclient/zmq failures on a misbehaving kernel
        if result.error is None:
            result.error = f"execution failed: {type(exc).__name__}: {exc}"[:500]
    finally:
        if sandbox is not None:
            sandbox.cleanup()
    result.seconds = time.monotonic() - start
    return result


def _append_error(cell, ename: str, evalue: str) -> None:
    cell.outputs.append(nbformat.v4.new_output("error", ename=ename, evalue=evalue,
                                               traceback=[f"{ename}: {evalue}"]))
