%%writefile accum.py
# correct: explicit if/else around no_sync, a list of weighted losses, zero_grad after the step
import torch.nn.functional as F


def accumulation_step(ddp_model, optimizer, micro_batches):
    total = sum(x.shape[0] for x, _ in micro_batches)
    losses = []
    for i, (x, y) in enumerate(micro_batches):
        weight = x.shape[0] / total
        if i < len(micro_batches) - 1:
            with ddp_model.no_sync():
                loss = F.mse_loss(ddp_model(x), y)
                (loss * weight).backward()
        else:
            loss = F.mse_loss(ddp_model(x), y)
            (loss * weight).backward()
        losses.append(loss.item() * weight)
    optimizer.step()
    optimizer.zero_grad()
    return sum(losses)
