"""distlab: run a function on every rank of a small process group, from a notebook.

Notebook 07 uses it to start real worker processes on a laptop CPU (gloo) or on a
multi-GPU machine (NCCL, one GPU per rank) with the same code::

    import distlab
    out = distlab.run("my_step.py:train", model, distlab.per_rank([batch0, batch1]))
    out[0].result, out[1].args[0]        # what rank 0 returned, rank 1's model after the call

What it does, and why:

* A function typed into a notebook cannot be unpickled in another process (it lives
  in the notebook's ``__main__``), so the code a rank runs lives in a ``.py`` file;
  ``"file.py:function"`` names it.  Each rank loads the file under a fresh module
  name, so an edited file is always re-read.
* Workers are forked from a *forkserver*: a helper process that imported torch
  once.  A fresh ``python`` per rank would pay the ~2 s import every time.  (Where
  there is no forkserver, on Windows, ranks are spawned instead.)
* Every rank joins the group through a ``FileStore`` in a private temporary
  folder, so two notebooks running at once can never collide on a TCP port, and
  gloo talks over the loopback interface (``GLOO_SOCKET_IFNAME``).
* A group that fails to form (on a loaded machine a loopback connection is now
  and then closed during gloo's handshake) is formed again from scratch, up to
  three times: until it has formed, none of the caller's code has run.
* Everything has a deadline: the group's collectives time out, and ``run``
  stops every rank when one rank fails or time runs out, and raises
  :class:`WorkerError` with the traceback of the rank that failed first.

This file holds no exercise answers.
"""

from __future__ import annotations

import datetime
import importlib.util
import itertools
import os
import random
import shutil
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass

import torch
import torch.distributed as dist
import torch.multiprocessing as tmp_mp
import torch.nn as nn

__all__ = ["run", "per_rank", "load", "warm_up", "backend_for", "loopback_interface", "scratch_dir", "RankResult",
           "WorkerError"]

_HERE = os.path.dirname(os.path.abspath(__file__))
_fresh = itertools.count()
# imported once, in the forkserver only: DDP alone pulls in torch._dynamo, seconds of imports per rank otherwise
_PRELOAD = ["torch._dynamo", "torch.distributed.fsdp", "torch.distributed.optim", "torch.distributed.checkpoint.state_dict",
            "torch.utils.data"]


class WorkerError(RuntimeError):
    """A rank raised, died, or did not finish in time."""


@dataclass
class RankResult:
    rank: int
    result: object  # what the function returned (tensors moved to the CPU)
    args: tuple  # the positional arguments as they were after the call (a model trained in place comes back trained)
    output: str  # what the rank printed


class per_rank(list):
    """An argument that differs between ranks: rank r receives item r."""


def backend_for(nprocs: int) -> str:
    """NCCL when every rank can have its own GPU, gloo (CPU) otherwise."""
    return "nccl" if torch.cuda.is_available() and torch.cuda.device_count() >= nprocs else "gloo"


def scratch_dir(prefix: str = "distlab-scratch-") -> str:
    """A new temporary folder for the files a notebook writes; also removes those left by exited notebooks.

    (A Jupyter kernel that started a forkserver is usually stopped before its exit
    handlers run, so a ``TemporaryDirectory`` would never be cleaned up.)
    """
    base = tempfile.gettempdir()
    for name in os.listdir(base):
        path = os.path.join(base, name)
        if not name.startswith(prefix):
            continue
        try:
            with open(os.path.join(path, ".owner")) as f:
                owner = int(f.read())
            os.kill(owner, 0)  # raises when the owner is gone
        except ProcessLookupError:
            shutil.rmtree(path, ignore_errors=True)
        except (OSError, ValueError):
            pass  # not ours to judge: unreadable, or owned by another user
    path = tempfile.mkdtemp(prefix=prefix)
    with open(os.path.join(path, ".owner"), "w") as f:
        f.write(str(os.getpid()))
    return path


def loopback_interface() -> str:
    """The loopback network interface: gloo otherwise picks one from the hostname, which may not resolve."""
    return "lo0" if sys.platform == "darwin" else "lo"


def load(path: str):
    """Import the Python file at ``path`` as a new module (never a cached one)."""
    path = os.path.abspath(path)
    stem = os.path.splitext(os.path.basename(path))[0]
    name = f"_distlab_{stem}_{os.getpid()}_{next(_fresh)}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _context():
    # forkserver where the platform has it (Linux, macOS); spawn (slower: one torch import per rank) elsewhere
    ctx = tmp_mp.get_context("forkserver" if "forkserver" in tmp_mp.get_all_start_methods() else "spawn")
    if _HERE not in sys.path:
        sys.path.insert(0, _HERE)  # so that the forkserver can import this module
    ctx.set_forkserver_preload([__name__] + _PRELOAD)
    return ctx


def warm_up() -> None:
    """Start the forkserver now (it imports torch once, in the background)."""
    from multiprocessing import forkserver

    if _context().get_start_method() != "forkserver":
        return
    # CUDA must never be initialised in a process that forks. The forkserver does not touch
    # CUDA, and with this variable even a stray torch.cuda.is_available() asks NVML, which is fork-safe.
    old = os.environ.get("PYTORCH_NVML_BASED_CUDA_CHECK")
    os.environ["PYTORCH_NVML_BASED_CUDA_CHECK"] = "1"
    try:
        forkserver.ensure_running()  # the server and every rank forked from it inherit this environment
    finally:
        if old is None:
            del os.environ["PYTORCH_NVML_BASED_CUDA_CHECK"]
        else:
            os.environ["PYTORCH_NVML_BASED_CUDA_CHECK"] = old


# ---------------------------------------------------------------- inside a rank


def _move(obj, device):
    if isinstance(obj, (torch.Tensor, nn.Module)):
        return obj.to(device)
    if isinstance(obj, per_rank):
        return obj
    if isinstance(obj, (list, tuple)):
        return type(obj)(_move(x, device) for x in obj)
    if isinstance(obj, dict):
        return {k: _move(v, device) for k, v in obj.items()}
    return obj


def _to_cpu(obj):
    if isinstance(obj, torch.Tensor):
        return obj.detach().cpu()
    if isinstance(obj, nn.Module):
        return obj.cpu()
    if isinstance(obj, (list, tuple)) and type(obj) in (list, tuple):
        return type(obj)(_to_cpu(x) for x in obj)
    if isinstance(obj, dict):
        return {k: _to_cpu(v) for k, v in obj.items()}
    return obj


def _resolve(target):
    if callable(target):
        return target
    path, _, name = target.rpartition(":")
    if not path or not name:
        raise ValueError(f"target must look like 'file.py:function', got {target!r}")
    return getattr(load(path), name)


def _worker(rank, nprocs, folder, target, backend, timeout, seed):
    log = os.open(os.path.join(folder, f"rank{rank}.log"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(log, 1)
    os.dup2(log, 2)
    # the variables torchrun sets for its workers
    os.environ.update(RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(nprocs),
                      LOCAL_WORLD_SIZE=str(nprocs), MASTER_ADDR="127.0.0.1")
    if backend == "gloo":
        os.environ.setdefault("GLOO_SOCKET_IFNAME", loopback_interface())  # one machine: talk over loopback
    torch.set_num_threads(1)  # one core per rank, as torchrun's OMP_NUM_THREADS=1
    code = 0
    stage = "join"  # until the group is formed no code of the caller's has run, and a failure may be retried
    try:
        device = torch.device("cpu")
        kwargs = {}
        if backend == "nccl":
            device = torch.device("cuda", rank)
            torch.cuda.set_device(device)
            kwargs["device_id"] = device
        dist.init_process_group(backend, init_method="file://" + os.path.join(folder, "store"), rank=rank,
                                world_size=nprocs, timeout=datetime.timedelta(seconds=timeout), **kwargs)
        stage = "run"
        open(os.path.join(folder, f"joined{rank}"), "w").close()
        try:
            random.seed(seed)
            torch.manual_seed(seed)
            try:
                import numpy as np

                np.random.seed(seed % 2**32)
            except ImportError:
                pass
            args, kw = torch.load(os.path.join(folder, "args.pt"), weights_only=False)
            args = tuple(a[rank] if isinstance(a, per_rank) else a for a in args)
            kw = {k: (v[rank] if isinstance(v, per_rank) else v) for k, v in kw.items()}
            args, kw = _move(args, device), _move(kw, device)
            fn = _resolve(target)
            result = fn(*args, **kw)
            out = os.path.join(folder, f"result{rank}.pt")
            try:
                torch.save({"result": _to_cpu(result), "args": _to_cpu(args)}, out)
            except Exception:  # arguments that cannot travel back (a model sharded by FSDP, say)
                torch.save({"result": _to_cpu(result), "args": None}, out)
        finally:
            if dist.is_initialized():
                dist.destroy_process_group()
    except BaseException as exc:  # report it to the parent, which decides what to raise
        code = 1
        with open(os.path.join(folder, f"error{rank}.txt"), "w") as f:
            f.write(f"{time.time():.6f} {stage}\n{type(exc).__name__}: {str(exc)[:2000]}\n{traceback.format_exc()}")
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    sys.exit(code)


# ---------------------------------------------------------------- in the notebook


def _errors(folder, nprocs):
    """(time, rank, stage, summary, traceback) of every rank that reported an error."""
    errors = []
    for r in range(nprocs):
        p = os.path.join(folder, f"error{r}.txt")
        if os.path.exists(p):
            with open(p) as f:
                head, summary, tb = f.read().split("\n", 2)
            stamp, _, stage = head.partition(" ")
            errors.append((float(stamp), r, stage, summary, tb))
    return errors


def _only_joining_failed(folder, nprocs, exitcodes):
    """True when the ranks failed while forming the group: the caller's code never ran.

    Forming a gloo group opens a connection between every pair of ranks over the
    loopback; on a loaded machine one of them is now and then closed before the
    handshake ends.  Such a run is started again, once or twice, in a fresh folder.
    """
    errors = _errors(folder, nprocs)
    reported = {e[1] for e in errors}
    died_after_joining = [r for r, c in enumerate(exitcodes) if c not in (None, 0) and r not in reported
                          and os.path.exists(os.path.join(folder, f"joined{r}"))]
    return bool(errors) and not died_after_joining and all(e[2] == "join" for e in errors)


def _first_error(folder, nprocs, exitcodes):
    errors = [(stamp, r, summary, tb) for stamp, r, _, summary, tb in _errors(folder, nprocs)]
    if errors:
        _, r, summary, tb = min(errors)
        tail = "\n".join(tb.strip().splitlines()[-12:])
        return f"rank {r} raised {summary}\n--- traceback of rank {r} (last lines) ---\n{tail}"
    died = [(r, c) for r, c in enumerate(exitcodes) if c not in (None, 0)]
    return "; ".join(f"rank {r} died with exit code {c}" for r, c in died) or "a rank failed"


def run(target, *args, nprocs: int = 2, timeout: float = 60.0, seed: int | None = None,
        backend: str | None = None, show_output: bool = True, **kwargs) -> list[RankResult]:
    """Call ``target(*args, **kwargs)`` on each of ``nprocs`` ranks of a new process group.

    ``target`` is ``"file.py:function"`` (or a function of an importable module).
    Arguments travel with ``torch.save``; tensors and modules are moved to the rank's
    device (``cuda:rank`` under NCCL, else the CPU).  A :class:`per_rank` argument
    gives rank r its item r.  Every rank seeds torch, numpy and random with the same
    ``seed`` (default: drawn from torch's global generator, so a seeded notebook
    stays reproducible).  Returns one :class:`RankResult` per rank; raises
    :class:`WorkerError` when a rank fails or ``timeout`` seconds pass.
    """
    backend = backend or backend_for(nprocs)
    if isinstance(target, str):  # resolve the file here: the ranks may start in another folder
        path, _, name = target.rpartition(":")
        target = f"{os.path.abspath(path)}:{name}" if path else target
    if seed is None:
        seed = int(torch.randint(0, 2**31 - 1, ()).item())
    for a in list(args) + list(kwargs.values()):
        if isinstance(a, per_rank) and len(a) != nprocs:
            raise ValueError(f"per_rank argument has {len(a)} items for {nprocs} ranks")
    for attempt in range(_JOIN_ATTEMPTS):
        try:
            return _run_once(target, args, kwargs, nprocs, timeout, seed, backend, show_output)
        except _JoinFailed as failed:
            if attempt == _JOIN_ATTEMPTS - 1:
                raise WorkerError(str(failed)) from None


_JOIN_ATTEMPTS = 3


class _JoinFailed(Exception):
    """The ranks could not form the group; nothing of the caller's ran."""


def _run_once(target, args, kwargs, nprocs, timeout, seed, backend, show_output):
    ctx = _context()
    warm_up()  # no-op when the forkserver already runs
    folder = tempfile.mkdtemp(prefix="distlab-")
    procs = []
    try:
        torch.save((args, kwargs), os.path.join(folder, "args.pt"))
        for r in range(nprocs):
            p = ctx.Process(target=_worker, args=(r, nprocs, folder, target, backend, timeout, seed),
                            name=f"rank{r}")
            p.start()
            procs.append(p)
        deadline = time.monotonic() + timeout
        failed = timed_out = False
        while True:
            alive = [p for p in procs if p.exitcode is None]
            failed = any(p.exitcode not in (None, 0) for p in procs)
            if failed or not alive:
                break
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            from multiprocessing.connection import wait

            wait([p.sentinel for p in alive], timeout=min(left, 1.0))
        if failed:  # let the other ranks report their own errors, then stop them
            end = time.monotonic() + 1.0
            for p in procs:
                p.join(max(0.0, end - time.monotonic()))
        outputs = []
        for r in range(nprocs):
            try:
                with open(os.path.join(folder, f"rank{r}.log"), errors="replace") as f:
                    outputs.append(f.read())
            except OSError:
                outputs.append("")
        if timed_out:
            late = [r for r, p in enumerate(procs) if p.exitcode is None]
            raise WorkerError(f"rank(s) {late} still running after {timeout:g} s and were stopped "
                              "(a rank waiting in a collective that another rank never reached?)")
        if failed:
            exitcodes = [p.exitcode for p in procs]
            if _only_joining_failed(folder, nprocs, exitcodes):
                raise _JoinFailed(_first_error(folder, nprocs, exitcodes))
            raise WorkerError(_first_error(folder, nprocs, exitcodes))
        results = []
        for r in range(nprocs):
            got = torch.load(os.path.join(folder, f"result{r}.pt"), weights_only=False)
            results.append(RankResult(r, got["result"], got["args"], outputs[r]))
        if show_output:
            for r, text in enumerate(outputs):
                for line in text.splitlines():
                    print(f"[rank {r}] {line}")
        return results
    finally:
        for p in procs:
            if p.exitcode is None:
                p.terminate()
        for p in procs:
            p.join(2.0)
            if p.exitcode is None:
                p.kill()
                p.join()
        shutil.rmtree(folder, ignore_errors=True)
