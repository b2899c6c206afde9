%%writefile ddp_train.py
# correct: optimizer built on the plain model before wrapping, nn.MSELoss, zero_grad after the step
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel


def train_ddp(model, batches, lr):
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    net = DistributedDataParallel(model)
    criterion = nn.MSELoss()
    out = []
    for inputs, targets in batches:
        loss = criterion(net(inputs), targets)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        out.append(loss.detach().item())
    return out
