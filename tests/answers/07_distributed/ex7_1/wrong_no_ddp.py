# caught by the visible tests
# wrong: never wraps the model in DDP, so each rank trains on its own half only
# (the same as a %%writefile ddp_train.py cell: a cell magic cannot follow this first line)
get_ipython().run_cell_magic("writefile", "ddp_train.py", r'''# wrong: never wraps the model in DDP, so each rank trains on its own half only
import torch
import torch.nn.functional as F


def train_ddp(model, batches, lr):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for x, y in batches:
        optimizer.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses
''')
