# caught by the visible tests
# wrong: all-reduces the loss value, not the gradients: each rank steps on its own gradient
# (the same as a %%writefile dp_by_hand.py cell: a cell magic cannot follow this first line)
get_ipython().run_cell_magic("writefile", "dp_by_hand.py", r'''# wrong: all-reduces the loss value, not the gradients: each rank steps on its own gradient
# Exercise 7.7: runs on every rank, inside an initialised process group.
import torch
import torch.distributed as dist
import torch.nn.functional as F


def train_by_hand(model, batches, lr):
    """Data parallelism without DDP: broadcast rank 0's parameters, then SGD(lr) on the mean MSE loss
    with all-reduced, averaged gradients. Return (losses as floats, flattened parameters after each step)."""
    with torch.no_grad():
        for p in model.parameters():
            dist.broadcast(p, src=0)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    losses, trace = [], []
    for x, y in batches:
        optimizer.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        logged = loss.detach().clone()
        dist.all_reduce(logged, op=dist.ReduceOp.AVG)
        optimizer.step()
        losses.append(loss.item())
        trace.append(torch.cat([p.detach().reshape(-1).clone() for p in model.parameters()]))
    return losses, trace
''')
