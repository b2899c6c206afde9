# caught by the visible tests
# wrong: never zeroes the gradients, so they add up across steps
# (the same as a %%writefile ddp_train.py cell: a cell magic cannot follow this first line)
get_ipython().run_cell_magic("writefile", "ddp_train.py", r'''# wrong: never zeroes the gradients, so they add up across steps
import torch
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP


def train_ddp(model, batches, lr):
    ddp_model = DDP(model)
    optimizer = torch.optim.SGD(ddp_model.parameters(), lr=lr)
    losses = []
    for x, y in batches:
        loss = F.mse_loss(ddp_model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses
''')
