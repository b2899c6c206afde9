%%writefile zero1.py
# correct: contiguous blocks of tensors (rank r owns the r-th block of ceil(P / W)); AVG all-reduce;
# the parameters are gathered by an all-reduce in which every non-owner contributes zeros (x + 0 == x exactly)
# Exercise 7.6: runs on every rank, inside an initialised process group.
import torch
import torch.distributed as dist
import torch.nn.functional as F


def zero1_train(model, batches, lr):
    rank, world = dist.get_rank(), dist.get_world_size()
    params = list(model.parameters())
    block = -(-len(params) // world)
    owned = [i // block == rank for i in range(len(params))]
    optimizer = torch.optim.SGD([p for p, o in zip(params, owned) if o], lr=lr, momentum=0.9)
    trace = []
    for x, y in batches:
        model.zero_grad(set_to_none=False)
        F.mse_loss(model(x), y).backward()
        for p in params:
            dist.all_reduce(p.grad, op=dist.ReduceOp.AVG)
        optimizer.step()
        with torch.no_grad():
            for p, o in zip(params, owned):
                if not o:
                    p.zero_()
                dist.all_reduce(p)
        trace.append(torch.cat([p.detach().reshape(-1) for p in params]).clone())
    return trace, optimizer
