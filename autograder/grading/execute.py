"""The execution seam: start a Jupyter kernel as grading does, and run a notebook in it.

:class:`KernelSession` is one kernel started the grading way (the client that bounds what it takes
from a kernel, the course's kernel arguments, the sandbox's kernel manager) and the ways grading
uses it: run a cell, evaluate an expression without a cell, stand in for a cell off the grade path.  :func:`execute` runs one notebook top to bottom in a fresh session and returns it with
outputs: everything that grades learner code goes through it, and the notebook tests judge their
answer variants in a session of their own.  The sandbox (:mod:`autograder.sandbox.launch`) wraps
the kernel process; the caller decides what the verdicts are from the outputs, outside the kernel.
"""

from __future__ import annotations

import copy
import os
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from autograder import PACKAGE_DIR
from autograder.sandbox.kernel_client import limited_client_class
from autograder.values import course, timing, wire

# around every test cell: the cell leaves the global generators as it found them (autograder.probe)
HOLD_GENERATORS = wire.call("autograder.probe.hold_generators")
RELEASE_GENERATORS = wire.call("autograder.probe.release_generators")


def kernel_arguments(root: Path | None = None) -> list[str]:
    """The kernel's extra arguments, as the course's ``nbgrader_config.py`` sets them for nbgrader's own
    runs (``Execute.extra_arguments``), so stock nbgrader and this grader start kernels alike."""
    try:
        cfg = course.config(root or course.find_root())
        args = cfg.Execute.extra_arguments if "extra_arguments" in cfg.Execute else None
    except (FileNotFoundError, OSError):
        args = None
    return list(args) if args else list(wire.KERNEL_ARGS)


@dataclass
class Limits:
    """Resource limits for one notebook run (see docs/security.md)."""

    cell_timeout: float = 300.0  # seconds of wall clock per cell
    notebook_timeout: float = 900.0  # seconds of wall clock for the whole notebook
    startup_timeout: float = 60.0  # seconds for the kernel to start
    memory_mb: int = 6144  # data memory (RLIMIT_DATA) of each process of the kernel
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
    seconds: float = 0.0
    fingerprints: dict[int, str] = field(default_factory=dict)  # cell index -> what its probe expression gave
    cell_seconds: dict[int, float] = field(default_factory=dict)  # code cell index -> seconds it ran


def launch_env(extra: dict[str, str]) -> dict[str, str]:
    """The environment a kernel starts with (outside the sandbox, which keeps only part of it)."""
    env = dict(os.environ)
    # the kernel imports the autograder package this process runs, not another installed copy
    pkg = os.path.dirname(PACKAGE_DIR)
    env["PYTHONPATH"] = os.pathsep.join([pkg] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    env["PYTHONWARNINGS"] = env.get("PYTHONWARNINGS", "")
    env.update(extra)
    return env


def work_folder(sandbox, prefix: str):
    """A fresh working folder for one run, removed after: the sandbox's own (its zygote sees only
    that), or a temporary one when nothing is sandboxed."""
    import contextlib
    import tempfile

    if sandbox is not None:
        return sandbox.work_folder(prefix)

    @contextlib.contextmanager
    def plain():
        with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
            yield Path(tmp)

    return plain()


class KernelSession:
    """One kernel, started as grading starts it, and the three things grading does with it: run a
    code cell (:meth:`run_cell`), evaluate an expression without a cell (:meth:`evaluate`) and stand
    in for a cell off the grade path (:meth:`skip_cell`).

    The kernel comes from the client that bounds what it takes from a kernel
    (:func:`~autograder.sandbox.kernel_client.limited_client_class`), with the course's kernel
    arguments and :func:`launch_env`, and from ``sandbox``'s kernel manager when one is given;
    ``cwd`` must then be one of the sandbox's folders (:func:`work_folder`).  Making a session claims
    the sandbox's user id; entering it starts the kernel; leaving it kills the kernel, cleans up the
    sandbox and closes the client's sockets.  ``nb`` is the notebook whose cells run here (nbclient
    keeps a cell at its index in it): :func:`execute` passes the notebook it runs, a caller that adds
    cells as it goes appends them to :attr:`nb` before running them.
    """

    def __init__(self, cwd: os.PathLike, *, nb: nbformat.NotebookNode | None = None,
                 env: dict[str, str] | None = None, limits: Limits | None = None,
                 sandbox: "object | None" = None) -> None:
        self.cwd = Path(cwd)
        self.nb = nb if nb is not None else nbformat.v4.new_notebook()
        self.env = dict(env or {})
        self.limits = limits = limits or Limits()
        self.sandbox = sandbox
        self.client = client = limited_client_class()(
            self.nb,
            timeout=limits.cell_timeout,
            startup_timeout=max(1, int(limits.startup_timeout)),
            kernel_name="python3",
            allow_errors=True,
            interrupt_on_timeout=False,
            record_timing=False,
            # every output is in by now: kill the kernel instead of waiting for it to wind down
            shutdown_kernel="immediate",
            extra_arguments=kernel_arguments(),
            resources={"metadata": {"path": str(self.cwd)}},
        )
        if sandbox is not None:
            client.kernel_manager_class = sandbox.prepare(self.cwd, limits)
        client.output_budget = limits.max_output_kb * 1024
        client.notebook_budget = limits.max_notebook_output_kb * 1024
        client.on_cell_executed = self._on_executed
        self._kernel = None

    def __enter__(self) -> "KernelSession":
        started = time.perf_counter()
        self._kernel = self.client.setup_kernel(env=launch_env(self.env), cwd=str(self.cwd),
                                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            self._kernel.__enter__()
        except BaseException:
            self._kernel = None
            self._release()
            raise
        timing.record("kernel start (sandbox + ipykernel ready)", time.perf_counter() - started)
        if timing.listening():  # where that time went: the kernel's own CPU, and its wait for a CPU
            cpu, queued = _scheduled(self.client.kernel_pid)
            timing.record("kernel start: the kernel's CPU time", cpu)
            timing.record("kernel start: the kernel waiting for a CPU", queued)
        return self

    def __exit__(self, *exc) -> bool | None:
        kernel, self._kernel = self._kernel, None
        try:
            return kernel.__exit__(*exc) if kernel is not None else None
        finally:
            self._release()

    def _release(self) -> None:
        if self.sandbox is not None:
            self.sandbox.cleanup()
        ctx = getattr(self.client, "zmq_context", None)
        if ctx is not None:
            ctx.destroy(linger=0)

    @staticmethod
    def _on_executed(cell, cell_index, execute_reply):
        # a kernel that hides its tracebacks still answers 'error': record it
        content = (execute_reply or {}).get("content", {})
        if content.get("status") == "error" and not any(o.get("output_type") == "error" for o in cell.outputs):
            _append_error(cell, str(content.get("ename", "Error"))[:100], str(content.get("evalue", ""))[:400])

    def run_cell(self, cell, index: int, left: float | None = None) -> str | None:
        """Run code cell ``index`` of :attr:`nb` as grading does: with its own output budget, for at
        most the cell time limit (or ``left`` seconds, what is left of the notebook's time, if less),
        a test cell leaving the global generators as it found them.  An error stays in the cell's
        outputs.  Returns None, or why the run cannot go on (the cell ran past its time limit, its
        output passed its limit, or the kernel died), which the cell's last output then says too."""
        from nbclient.exceptions import CellTimeoutError, DeadKernelError

        client = self.client
        limit = self.limits.cell_timeout if left is None else min(self.limits.cell_timeout, left)
        client.timeout = max(1, int(limit))
        client.start_cell_budget()
        neutral = course.is_tests(cell)
        try:
            with timing.phase(cell_class(cell)):
                if neutral:
                    self.evaluate(HOLD_GENERATORS)
                client.execute_cell(cell, index)
                if neutral:
                    self.evaluate(RELEASE_GENERATORS)
        except CellTimeoutError:
            _append_error(cell, "CellTimeoutError", f"cell ran longer than {client.timeout:.0f} s and was stopped")
            return f"a cell ran past its time limit ({client.timeout:.0f} s)"
        except DeadKernelError:
            if client.flooded:
                _append_error(cell, "OutputLimitExceeded",
                              f"the cell printed more than {client.flooded >> 10} KiB and was stopped")
                return f"a cell's output passed its limit ({self.limits.max_output_kb} KiB) and was stopped"
            _append_error(cell, "DeadKernelError", "the kernel died while running this cell")
            return "the kernel died (crash, os._exit, or a resource limit)"
        return None

    def evaluate(self, expression: str) -> str:
        """Evaluate ``expression`` in the kernel without a cell: no output, no history, no execution count."""
        client = self.client
        msg_id = client.kc.execute("", silent=True, store_history=False, user_expressions={"probe": expression},
                                   allow_stdin=False, stop_on_error=False)
        reply = client.wait_for_reply(msg_id)
        found = ((reply or {}).get("content", {}).get("user_expressions") or {}).get("probe", {})
        if found.get("status") != "ok":
            return f"probe failed: {found.get('ename', 'no reply')}: {str(found.get('evalue', ''))[:200]}"
        text = found.get("data", {}).get("text/plain", "")
        try:
            import ast

            return str(ast.literal_eval(text))
        except (ValueError, SyntaxError):
            return text

    @staticmethod
    def skip_cell(cell) -> None:
        """Stand in for a cell off the grade path: its note as its output; nothing runs."""
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=skip_reason(cell))]


def execute(nb: nbformat.NotebookNode, cwd: os.PathLike, *, env: dict[str, str] | None = None,
            limits: Limits | None = None, sandbox: "object | None" = None,
            fingerprints: dict[int, str] | None = None) -> ExecResult:
    """Run ``nb`` top to bottom in a fresh kernel (a :class:`KernelSession`) with working directory ``cwd``.

    A code cell marked off the grade path (:func:`skip_reason`) is not run; it gets a note instead.
    A test cell leaves the global random-number generators as it found them, so that how far
    it got (a released stub stops at its first assert) never shifts what later cells draw.
    ``fingerprints`` maps a cell index (or ``len(nb.cells)``, the end) to a Python expression evaluated
    silently just before that cell runs; what it gives is in ``ExecResult.fingerprints``.

    Never raises for what the notebook does: a cell error stays in that cell's
    outputs, and a dead or hung kernel ends the run with ``ExecResult.error`` set,
    keeping the outputs of every cell that finished before.
    """
    from nbclient.exceptions import DeadKernelError

    limits = limits or Limits()
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    session = KernelSession(cwd, nb=nb, env=env, limits=limits, sandbox=sandbox)
    result = ExecResult(nb)
    start = time.monotonic()
    deadline = start + limits.notebook_timeout
    try:
        with session:
            for index, cell in enumerate(nb.cells):
                if cell.cell_type != "code":
                    continue
                if skip_reason(cell):
                    session.skip_cell(cell)
                    continue
                if fingerprints and index in fingerprints:
                    result.fingerprints[index] = session.evaluate(fingerprints[index])
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    result.error = f"notebook time limit of {limits.notebook_timeout:.0f} s reached"
                    break
                began = time.monotonic()
                stopped = session.run_cell(cell, index, left=remaining)
                if stopped:
                    result.error = stopped
                    break
                result.cell_seconds[index] = time.monotonic() - began
            else:
                if fingerprints and len(nb.cells) in fingerprints:
                    result.fingerprints[len(nb.cells)] = session.evaluate(fingerprints[len(nb.cells)])
    except (RuntimeError, TimeoutError, DeadKernelError, OSError) as exc:
        if result.error is None:
            result.error = f"the kernel could not run the notebook: {type(exc).__name__}: {exc}"[:500]
    except Exception as exc:  # nbclient/zmq failures on a misbehaving kernel
        if result.error is None:
            result.error = f"execution failed: {type(exc).__name__}: {exc}"[:500]
    result.seconds = time.monotonic() - start
    return result


def _scheduled(pid: int | None) -> tuple[float, float]:
    """Seconds the process ``pid`` (all its threads) has run on a CPU, and waited for one, so far."""
    cpu = queued = 0
    for task in Path(f"/proc/{pid}/task").glob("*/schedstat") if pid else ():
        try:
            ran, waited, _ = task.read_text().split()
        except (OSError, ValueError):  # a thread that ended meanwhile
            continue
        cpu, queued = cpu + int(ran), queued + int(waited)
    return cpu / 1e9, queued / 1e9


def skip_reason(cell) -> str:
    """Why the grader does not run this cell ("" when it runs): set only for a cell off the grade path
    (:func:`autograder.gradepath.mark`)."""
    return str(cell.get("metadata", {}).get("autograder", {}).get("skipped", "") or "")


def cell_class(cell) -> str:
    """What kind of cell this is, for the profile."""
    if course.is_solution(cell):
        return "cells: answer cells (student code)"
    if course.is_tests(cell):
        return "cells: test cells (visible asserts + hidden observations)"
    return "cells: the notebook's own code (data, demos, training)"


def _append_error(cell, ename: str, evalue: str) -> None:
    cell.outputs.append(nbformat.v4.new_output("error", ename=ename, evalue=evalue,
                                               traceback=[f"{ename}: {evalue}"]))
