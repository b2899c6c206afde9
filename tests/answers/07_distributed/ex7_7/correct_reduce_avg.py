%%writefile dp_by_hand.py
# correct: ReduceOp.AVG, broadcast through .data, zero_grad after the step
# Exercise 7.7: runs on every rank, inside an initialised process group.
import torch
import torch.distributed as dist
import torch.nn.functional as F


def train_by_hand(model, batches, lr):
    """Data parallelism without DDP: broadcast rank 0's parameters, then SGD(lr) on the mean MSE loss
    with all-reduced, averaged gradients. Return (losses as floats, flattened parameters after each step)."""
    for p in model.parameters():
        dist.broadcast(p.data, 0)
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    losses, trace = [], []
    for x, y in batches:
        loss = F.mse_loss(model(x), y)
        loss.backward()
        for p in model.parameters():
            dist.all_reduce(p.grad, op=dist.ReduceOp.AVG)
        opt.step()
        opt.zero_grad()
        losses.append(float(loss))
        trace.append(torch.cat([p.detach().clone().flatten() for p in model.parameters()]))
    return losses, trace
