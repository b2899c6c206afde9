%%writefile accum.py
# wrong: zeroes the gradients before every micro-batch, so only the last one counts
import contextlib

import torch.nn.functional as F


def accumulation_step(ddp_model, optimizer, micro_batches):
    n = len(micro_batches)
    total = 0.0
    for i, (x, y) in enumerate(micro_batches):
        optimizer.zero_grad()
        with contextlib.nullcontext() if i == n - 1 else ddp_model.no_sync():
            loss = F.mse_loss(ddp_model(x), y) / n
            loss.backward()
        total += loss.item()
    optimizer.step()
    return total
