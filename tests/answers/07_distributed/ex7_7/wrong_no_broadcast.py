# caught by the visible tests
# wrong: no broadcast: each rank keeps its own initial weights
# (the same as a %%writefile dp_by_hand.py cell: a cell magic cannot follow this first line)
get_ipython().run_cell_magic("writefile", "dp_by_hand.py", r'''# wrong: no broadcast: each rank keeps its own initial weights
# Exercise 7.7: runs on every rank, inside an initialised process group.
import torch
import torch.distributed as dist
import torch.nn.functional as F


def train_by_hand(model, batches, lr):
    """Data parallelism without DDP: broadcast rank 0's parameters, then SGD(lr) on the mean MSE loss
    with all-reduced, averaged gradients. Return (losses as floats, flattened parameters after each step)."""
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    losses, trace = [], []
    for x, y in batches:
        optimizer.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        for p in model.parameters():
            dist.all_reduce(p.grad)
            p.grad /= dist.get_world_size()
        optimizer.step()
        losses.append(loss.item())
        trace.append(torch.cat([p.detach().reshape(-1).clone() for p in model.parameters()]))
    return losses, trace
''')
