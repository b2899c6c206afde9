%%writefile zero1.py
# wrong: rank r owns params[r * k:(r + 1) * k] with k = len(params) // W: with an odd number of tensors
# the last one has no owner and is never trained
# Exercise 7.6: runs on every rank, inside an initialised process group.
import torch
import torch.distributed as dist
import torch.nn.functional as F


def zero1_train(model, batches, lr):
    rank, world = dist.get_rank(), dist.get_world_size()
    params = list(model.parameters())
    k = len(params) // world
    optimizer = torch.optim.SGD(params[rank * k:(rank + 1) * k], lr=lr, momentum=0.9)
    trace = []
    for x, y in batches:
        model.zero_grad()
        F.mse_loss(model(x), y).backward()
        for p in params:
            dist.all_reduce(p.grad)
            p.grad /= world
        optimizer.step()
        with torch.no_grad():
            for r in range(world):
                for p in params[r * k:(r + 1) * k]:
                    dist.broadcast(p, src=r)
        trace.append(torch.cat([p.detach().reshape(-1).clone() for p in params]))
    return trace, optimizer
