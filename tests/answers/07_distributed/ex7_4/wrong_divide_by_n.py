# caught by the visible tests
# wrong: each loss divided by the number of micro-batches: the smaller last one weighs as much as a full one
# (the same as a %%writefile accum.py cell: a cell magic cannot follow this first line)
get_ipython().run_cell_magic("writefile", "accum.py", r'''# wrong: each loss divided by the number of micro-batches: the smaller last one weighs as much as a full one
import contextlib

import torch.nn.functional as F


def accumulation_step(ddp_model, optimizer, micro_batches):
    n = len(micro_batches)
    optimizer.zero_grad()
    total = 0.0
    for i, (x, y) in enumerate(micro_batches):
        with contextlib.nullcontext() if i == n - 1 else ddp_model.no_sync():
            loss = F.mse_loss(ddp_model(x), y) / n
            loss.backward()
        total += loss.item()
    optimizer.step()
    return total
''')
