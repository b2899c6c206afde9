%%writefile ddp_train.py
# correct: no DDP wrapper; the gradients are averaged by hand with all_reduce(SUM) / world size
import torch
import torch.distributed as dist
import torch.nn.functional as F


def train_ddp(model, batches, lr):
    world = dist.get_world_size()
    for p in model.parameters():  # start from identical weights, as DDP's constructor would
        dist.broadcast(p.data, src=0)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for x, y in batches:
        optimizer.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        for p in model.parameters():
            dist.all_reduce(p.grad, op=dist.ReduceOp.SUM)
            p.grad /= world
        optimizer.step()
        losses.append(float(loss))
    return losses
