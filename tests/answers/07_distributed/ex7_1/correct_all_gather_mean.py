%%writefile ddp_train.py
# correct: no DDP wrapper; all gradients flattened into one vector, all-gathered, and averaged
import torch
import torch.distributed as dist
import torch.nn.functional as F


def train_ddp(model, batches, lr):
    params = list(model.parameters())
    with torch.no_grad():
        for p in params:  # the same start everywhere, as DDP's constructor ensures
            dist.broadcast(p, src=0)
    optimizer = torch.optim.SGD(params, lr=lr)
    losses = []
    for x, y in batches:
        for p in params:
            p.grad = None
        loss = F.mse_loss(model(x), y)
        loss.backward()
        flat = torch.cat([p.grad.reshape(-1) for p in params])
        gathered = [torch.empty_like(flat) for _ in range(dist.get_world_size())]
        dist.all_gather(gathered, flat)
        mean = torch.stack(gathered).mean(dim=0)
        offset = 0
        for p in params:
            p.grad.copy_(mean[offset:offset + p.numel()].view_as(p))
            offset += p.numel()
        optimizer.step()
        losses.append(loss.detach().item())
    return losses
