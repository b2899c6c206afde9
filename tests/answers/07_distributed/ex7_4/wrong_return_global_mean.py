# caught by the visible tests
# wrong: the right update, but the returned loss is all-reduced: the mean over both ranks, not this rank's
# (the same as a %%writefile accum.py cell: a cell magic cannot follow this first line)
get_ipython().run_cell_magic("writefile", "accum.py", r'''# wrong: the right update, but the returned loss is all-reduced: the mean over both ranks, not this rank's
import contextlib

import torch
import torch.distributed as dist
import torch.nn.functional as F


def accumulation_step(ddp_model, optimizer, micro_batches):
    total = sum(len(x) for x, _ in micro_batches)
    optimizer.zero_grad()
    mean_loss = torch.zeros((), dtype=torch.float64)
    for i, (x, y) in enumerate(micro_batches):
        with contextlib.nullcontext() if i == len(micro_batches) - 1 else ddp_model.no_sync():
            loss = F.mse_loss(ddp_model(x), y) * (len(x) / total)
            loss.backward()
        mean_loss += loss.detach()
    optimizer.step()
    dist.all_reduce(mean_loss, op=dist.ReduceOp.AVG)
    return mean_loss.item()
''')
