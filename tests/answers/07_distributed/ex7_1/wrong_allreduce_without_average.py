# caught by the visible tests
# wrong: all-reduces the gradients by hand with SUM and forgets to divide by the world size
# (the same as a %%writefile ddp_train.py cell: a cell magic cannot follow this first line)
get_ipython().run_cell_magic("writefile", "ddp_train.py", r'''# wrong: all-reduces the gradients by hand with SUM and forgets to divide by the world size
import torch
import torch.distributed as dist
import torch.nn.functional as F


def train_ddp(model, batches, lr):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for x, y in batches:
        optimizer.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        for p in model.parameters():
            dist.all_reduce(p.grad)
        optimizer.step()
        losses.append(loss.item())
    return losses
''')
