%%writefile accum.py
# wrong: the losses are not divided by n, so the update is n times too large
import contextlib

import torch.nn.functional as F


def accumulation_step(ddp_model, optimizer, micro_batches):
    n = len(micro_batches)
    optimizer.zero_grad()
    total = 0.0
    for i, (x, y) in enumerate(micro_batches):
        with contextlib.nullcontext() if i == n - 1 else ddp_model.no_sync():
            loss = F.mse_loss(ddp_model(x), y)
            loss.backward()
        total += loss.item()
    optimizer.step()
    return total / n
