%%writefile accum.py
# wrong: steps the optimizer after every micro-batch instead of once
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
        optimizer.step()
        total += loss.item()
    return total
