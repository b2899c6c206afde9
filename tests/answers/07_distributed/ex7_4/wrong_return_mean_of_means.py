# caught by the visible tests
# wrong: the right update, but returns the mean of the micro-batch means, not the mean over the samples
# (the same as a %%writefile accum.py cell: a cell magic cannot follow this first line)
get_ipython().run_cell_magic("writefile", "accum.py", r'''# wrong: the right update, but returns the mean of the micro-batch means, not the mean over the samples
import contextlib

import torch.nn.functional as F


def accumulation_step(ddp_model, optimizer, micro_batches):
    total = sum(len(x) for x, _ in micro_batches)
    optimizer.zero_grad()
    means = []
    for i, (x, y) in enumerate(micro_batches):
        with contextlib.nullcontext() if i == len(micro_batches) - 1 else ddp_model.no_sync():
            loss = F.mse_loss(ddp_model(x), y)
            (loss * (len(x) / total)).backward()
        means.append(loss.item())
    optimizer.step()
    return sum(means) / len(means)
''')
