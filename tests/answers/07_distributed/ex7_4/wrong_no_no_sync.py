%%writefile accum.py
# wrong: the right update, but every micro-batch's backward all-reduces
import torch.nn.functional as F


def accumulation_step(ddp_model, optimizer, micro_batches):
    n = len(micro_batches)
    optimizer.zero_grad()
    total = 0.0
    for x, y in micro_batches:
        loss = F.mse_loss(ddp_model(x), y) / n
        loss.backward()
        total += loss.item()
    optimizer.step()
    return total
