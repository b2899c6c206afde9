"""Drivers the tests of notebook 07 run on every rank: they set a scene, call your answer, report.

Each driver loads your answer file by path (a fresh module every time, so an edited
file is always re-read) and returns plain data that ``distlab.run`` brings back to
the notebook.  Nothing here is an exercise answer.
"""

from __future__ import annotations

import copy
import os
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
from torch.nn.parallel import DistributedDataParallel as DDP

import distlab


def flat(model: nn.Module) -> torch.Tensor:
    """All parameters of ``model`` in one 1-D CPU tensor."""
    return torch.cat([p.detach().reshape(-1).cpu() for p in model.parameters()])


def _sgd_like_step(ddp_model, optimizer, x, y):
    optimizer.zero_grad()
    F.mse_loss(ddp_model(x), y).backward()
    optimizer.step()


def _where(map_location) -> str:
    """Where ``torch.load`` was told to put the tensors: a device type, or what kind of mapping it got."""
    if map_location is None:
        return "not given"
    if isinstance(map_location, (str, torch.device)):
        return torch.device(map_location).type
    if isinstance(map_location, int):
        return "cuda"
    return type(map_location).__name__


def checkpoint_run(answer_file, model, batches, lr, path, probe_barrier=True, step=2):
    """Exercise 7.3: train 2 steps (DDP + Adam), ``save_checkpoint(..., step, path)``, then resume on every rank.

    The resumed model starts from a *different* random init on each rank and with a
    fresh Adam, calls load_checkpoint, is wrapped in DDP and takes one more step on
    ``batches[2]``; the original run takes the same step uninterrupted.  Returns how
    many times this rank called ``torch.save``, whether the file existed when
    ``save_checkpoint`` returned here, the step ``load_checkpoint`` returned, the
    ``torch.load`` calls it made (``weights_only`` not False, where ``map_location``
    sends the tensors), and both sets of parameters.

    With ``probe_barrier``, rank 0's ``torch.save`` waits until rank 1 has returned
    from ``save_checkpoint``, or until rank 1 has been inside it for 1 s: a rank 1 that
    returns before the file is written is then seen doing so, every time, and a correct
    answer costs 1 s.
    """
    rank = dist.get_rank()
    fresh = copy.deepcopy(model)
    saves, loads = [0], []
    entered, returned = path + ".rank1-entered", path + ".rank1-returned"
    real_save, real_load = torch.save, torch.load

    def counting_save(*args, **kwargs):
        saves[0] += 1
        if probe_barrier and rank == 0:
            give_up, seen_inside = time.monotonic() + 10.0, None
            while not os.path.exists(returned) and time.monotonic() < give_up:
                if seen_inside is None and os.path.exists(entered):
                    seen_inside = time.monotonic()
                if seen_inside is not None and time.monotonic() - seen_inside > 1.0:
                    break  # rank 1 has stayed in save_checkpoint for 1 s: it waits for this file
                time.sleep(0.01)
        return real_save(*args, **kwargs)

    def recording_load(f, map_location=None, *args, **kwargs):
        loads.append({"weights_only": kwargs.get("weights_only") is not False, "map_location": _where(map_location)})
        return real_load(f, map_location, *args, **kwargs)

    # patched before loading the answer, so that `from torch import save, load` is seen too
    torch.save, torch.load, torch.serialization.load = counting_save, recording_load, recording_load
    try:
        answer = distlab.load(answer_file)
        ddp = DDP(model)
        opt = torch.optim.Adam(ddp.parameters(), lr=lr)
        for x, y in batches[:2]:
            _sgd_like_step(ddp, opt, x, y)
        if rank == 1:
            open(entered, "w").close()
        answer.save_checkpoint(ddp, opt, step, path)
        exists_on_return = os.path.exists(path)
        if rank == 1:
            open(returned, "w").close()
        dist.barrier()  # the driver's own barrier: from here on the file is complete whatever the answer did

        with torch.no_grad():  # a different start on every rank: only loading can make them agree
            gen = torch.Generator().manual_seed(1000 + rank)
            for p in fresh.parameters():
                p.copy_(torch.randn(p.shape, generator=gen, dtype=p.dtype))
        opt2 = torch.optim.Adam(fresh.parameters(), lr=lr)
        loaded_step = answer.load_checkpoint(fresh, opt2, path)
    finally:
        torch.save, torch.load, torch.serialization.load = real_save, real_load, real_load
    ddp2 = DDP(fresh)
    x, y = batches[2]
    _sgd_like_step(ddp2, opt2, x, y)
    _sgd_like_step(ddp, opt, x, y)  # the uninterrupted run
    return {"saves": saves[0], "exists_on_return": exists_on_return, "step": loaded_step, "loads": loads,
            "resumed": flat(fresh), "uninterrupted": flat(model)}


def accumulation_run(answer_file, model, steps, lr):
    """Exercise 7.4: wrap ``model`` in DDP with a hook that counts gradient all-reduces, then call
    ``accumulation_step`` once per item of ``steps`` (a list of micro-batch lists).

    Returns the values ``accumulation_step`` returned (as floats, and whether each was a
    Python float) and the number of all-reduces (DDP hands each gradient bucket to the
    hook; a small model has one bucket).
    """
    answer = distlab.load(answer_file)
    ddp = DDP(model)
    calls = [0]

    def counting_allreduce(state, bucket):
        calls[0] += 1
        return default_hooks.allreduce_hook(state, bucket)

    ddp.register_comm_hook(None, counting_allreduce)
    opt = torch.optim.SGD(ddp.parameters(), lr=lr)
    returned = [answer.accumulation_step(ddp, opt, micro) for micro in steps]
    return {"returned": [float(v) for v in returned], "returned_is_float": [isinstance(v, float) for v in returned],
            "allreduces": calls[0]}


def zero1_run(answer_file, model, batches, lr):
    """Exercise 7.6: call ``zero1_train(model, batches, lr)`` and look inside the optimizer it returns.

    Returns the trace and the model after the call, the indices (in ``model.parameters()``
    order; -1 for a tensor that is not one of the model's) of the tensors the optimizer
    updates and of those it holds state for, the number of state elements it holds
    (every tensor in its state), and the optimizer's class, momentum and learning rate.
    """
    answer = distlab.load(answer_file)
    index = {id(p): i for i, p in enumerate(model.parameters())}
    trace, optimizer = answer.zero1_train(model, batches, lr)
    groups = getattr(optimizer, "param_groups", [])
    return {"trace": [t.detach().reshape(-1).clone() for t in trace], "model": flat(model),
            "updates": sorted(index.get(id(p), -1) for g in groups for p in g["params"]),
            "state_of": sorted(index.get(id(p), -1) for p in getattr(optimizer, "state", {})),
            "state_numel": sum(v.numel() for s in getattr(optimizer, "state", {}).values() for v in s.values()
                               if isinstance(v, torch.Tensor) and v.dim() > 0),
            "optimizer": type(optimizer).__name__,
            "momentum": [g.get("momentum") for g in groups], "lr": [g.get("lr") for g in groups]}
