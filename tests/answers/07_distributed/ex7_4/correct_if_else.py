%%writefile accum.py
# correct: explicit if/else around no_sync, zero_grad after the step
import torch.nn.functional as F


def accumulation_step(ddp_model, optimizer, micro_batches):
    n = len(micro_batches)
    losses = []
    for i, (x, y) in enumerate(micro_batches):
        if i < n - 1:
            with ddp_model.no_sync():
                loss = F.mse_loss(ddp_model(x), y)
                (loss / n).backward()
        else:
            loss = F.mse_loss(ddp_model(x), y)
            (loss / n).backward()
        losses.append(loss.item())
    optimizer.step()
    optimizer.zero_grad()
    return sum(losses) / n
