%%writefile zero1.py
# correct: the first ceil(n/W) tensors to rank 0, the next to rank 1, ...; all gradients averaged in
# one flat bucket (one all_reduce per step); optimizer.zero_grad(set_to_none=False) is not used
# Exercise 7.6: runs on every rank, inside an initialised process group.
import math

import torch
import torch.distributed as dist
import torch.nn.functional as F


def zero1_train(model, batches, lr):
    rank, world = dist.get_rank(), dist.get_world_size()
    params = list(model.parameters())
    per_rank = math.ceil(len(params) / world)
    owner = [min(i // per_rank, world - 1) for i in range(len(params))]
    optimizer = torch.optim.SGD([p for i, p in enumerate(params) if owner[i] == rank], lr=lr, momentum=0.9)
    trace = []
    for x, y in batches:
        model.zero_grad(set_to_none=True)
        F.mse_loss(model(x), y).backward()
        bucket = torch.cat([p.grad.reshape(-1) for p in params])
        dist.all_reduce(bucket)
        bucket /= world
        offset = 0
        for p in params:
            p.grad.copy_(bucket[offset:offset + p.numel()].view_as(p))
            offset += p.numel()
        optimizer.step()
        with torch.no_grad():
            for i, p in enumerate(params):
                dist.broadcast(p, src=owner[i])
        trace.append(torch.cat([p.detach().reshape(-1) for p in params]).clone())
    return trace, optimizer
