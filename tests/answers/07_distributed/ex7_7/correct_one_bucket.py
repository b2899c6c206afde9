%%writefile dp_by_hand.py
# correct: one flat bucket per step: one all-reduce for all gradients, as DDP's buckets do
# Exercise 7.7: runs on every rank, inside an initialised process group.
import torch
import torch.distributed as dist
import torch.nn.functional as F


def train_by_hand(model, batches, lr):
    """Data parallelism without DDP: broadcast rank 0's parameters, then SGD(lr) on the mean MSE loss
    with all-reduced, averaged gradients. Return (losses as floats, flattened parameters after each step)."""
    params = list(model.parameters())
    with torch.no_grad():
        flat = torch.cat([p.reshape(-1) for p in params])
        dist.broadcast(flat, src=0)
        offset = 0
        for p in params:
            p.copy_(flat[offset:offset + p.numel()].view_as(p))
            offset += p.numel()
    opt = torch.optim.SGD(params, lr=lr)
    world = dist.get_world_size()
    losses, trace = [], []
    for x, y in batches:
        opt.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        bucket = torch.cat([p.grad.reshape(-1) for p in params]) / world
        dist.all_reduce(bucket)
        offset = 0
        for p in params:
            p.grad.copy_(bucket[offset:offset + p.numel()].view_as(p.grad))
            offset += p.numel()
        opt.step()
        losses.append(loss.item())
        trace.append(torch.cat([p.detach().reshape(-1) for p in params]).clone())
    return losses, trace
