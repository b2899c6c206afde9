# caught by the visible tests
# wrong: zeroes the gradients before every micro-batch, so only the last one counts
# (the same as a %%writefile accum.py cell: a cell magic cannot follow this first line)
get_ipython().run_cell_magic("writefile", "accum.py", r'''# wrong: zeroes the gradients before every micro-batch, so only the last one counts
import contextlib

import torch.nn.functional as F


def accumulation_step(ddp_model, optimizer, micro_batches):
    total = sum(len(x) for x, _ in micro_batches)
    mean_loss = 0.0
    for i, (x, y) in enumerate(micro_batches):
        optimizer.zero_grad()
        with contextlib.nullcontext() if i == len(micro_batches) - 1 else ddp_model.no_sync():
            loss = F.mse_loss(ddp_model(x), y) * (len(x) / total)
            loss.backward()
        mean_loss += loss.item()
    optimizer.step()
    return mean_loss
''')
