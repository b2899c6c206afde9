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

from . import outputs

MAX_MESSAGE = 256 << 20  # bytes: the largest message the grader will receive from a kernel at all

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
    max_notebook_output_kb: int = 16384  # output kept for the whole notebook

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


def placeholder(note: str) -> dict:
    """What a refused message's content becomes: harmless as a stream, a display or a status."""
    return {"name": "stdout", "text": note, "data": {"text/plain": note} if note else {}, "metadata": {},
            "transient": {}, "execution_state": "busy", "wait": False}


def limited_client_class():
    """An nbclient ``NotebookClient`` that keeps at most ``output_budget`` bytes of output per cell
    and ``notebook_budget`` in all.

    Output past the budget is dropped as it arrives (so a flood cannot fill the
    grader's memory); past 16 times the budget the cell is stopped.  A single message
    larger than the cell's budget is refused before it is decoded (the kernel is stopped
    as for a flood), and the sockets refuse messages past a hard size, so one huge
    message cannot make the grader decode or hold it.
    """
    import zmq
    import zmq.asyncio
    from nbclient import NotebookClient

    class LimitedNotebookClient(NotebookClient):
        output_budget = 1 << 20
        notebook_budget = 16 << 20

        flooded = 0
        _notebook_used = 0

        def create_kernel_manager(self):
            km = super().create_kernel_manager()
            # the client's sockets drop any message past a hard size before it is held in memory (the
            # kernel is then cut off, and its cell runs into its time limit); below that size, the
            # unpacker refuses a message past the cell's budget before decoding it
            self.zmq_context = zmq.asyncio.Context()
            self.zmq_context.setsockopt(zmq.MAXMSGSIZE, max(MAX_MESSAGE, 16 * self.output_budget))
            make_client = km.client
            km.client = lambda **kw: make_client(**{"context": self.zmq_context, **kw})
            unpack = km.session.unpack
            client = self

            def guarded_unpack(data):
                if len(data) > client.output_budget + (64 << 10):
                    client.stop_flood(len(data))
                    return placeholder("")
                try:
                    found = unpack(data)
                except (ValueError, RecursionError, UnicodeDecodeError, TypeError):
                    return placeholder("[a message that could not be decoded was dropped]\n")
                if outputs.too_deep(found, 64):
                    return placeholder("[a message nested too deep was dropped]\n")
                return found

            km.session.unpack = guarded_unpack
            return km

        def stop_flood(self, amount: int) -> None:
            """Stop the kernel at once: the dead kernel ends the cell."""
            if self.flooded:
                return
            self.flooded = amount
            pid = getattr(getattr(self.km, "provisioner", None), "pid", None)
            if pid:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass

        def start_cell_budget(self) -> None:
            self._used, self._dropped, self._noted = 0, 0, False

        def output(self, outs, msg, display_id, cell_index):
            size = len(json.dumps(msg.get("content", {}), default=str))
            if self._notebook_used + size > self.notebook_budget:
                self._used = self.output_budget  # the notebook's budget is spent: drop as for a full cell
            if self._used + size > self.output_budget:
                self._dropped += size
                if not self._noted:
                    self._noted = True
                    outs.append(nbformat.v4.new_output(
                        "stream", name="stdout",
                        text=f"\n... output past {self.output_budget >> 10} KiB dropped ...\n"))
                if self._dropped > 16 * self.output_budget:
                    self.stop_flood(self._used + self._dropped)  # stop the flood at its source
                return None
            self._used += size
            self._notebook_used += size
            try:
                return super().output(outs, msg, display_id, cell_index)
            except Exception as exc:  # noqa: BLE001 - an output nbformat refuses: keep a note, run on
                outs.append(nbformat.v4.new_output(
                    "stream", name="stdout", text=f"[an output that is not valid in a notebook was dropped: "
                                                  f"{type(exc).__name__}]\n"))
                return None

    return LimitedNotebookClient


def _env(extra: dict[str, str]) -> dict[str, str]:
    env = dict(os.environ)
    # the kernel imports the autograder package this process runs, not another installed copy
    pkg = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join([pkg] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
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
    client.notebook_budget = limits.max_notebook_output_kb * 1024

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
        ctx = getattr(client, "zmq_context", None)
        if ctx is not None:
            ctx.destroy(linger=0)
    result.seconds = time.monotonic() - start
    return result


def _append_error(cell, ename: str, evalue: str) -> None:
    cell.outputs.append(nbformat.v4.new_output("error", ename=ename, evalue=evalue,
                                               traceback=[f"{ename}: {evalue}"]))
