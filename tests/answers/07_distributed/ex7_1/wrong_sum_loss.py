# caught by the visible tests
# wrong: summed loss; DDP averages over ranks, so the step is not the single-process one
# (the same as a %%writefile ddp_train.py cell: a cell magic cannot follow this first line)
get_ipython().run_cell_magic("writefile", "ddp_train.py", r'''# wrong: summed loss; DDP averages over ranks, so the step is not the single-process one
import torch
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP


def train_ddp(model, batches, lr):
    ddp_model = DDP(model)
    optimizer = torch.optim.SGD(ddp_model.parameters(), lr=lr)
    losses = []
    for x, y in batches:
        optimizer.zero_grad()
        loss = F.mse_loss(ddp_model(x), y, reduction="sum")
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses
''')
