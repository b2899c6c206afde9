%%writefile accum.py
# correct: summed (not mean) losses, the accumulated gradients divided by the number of loss terms before the step
import torch
import torch.nn.functional as F


def accumulation_step(ddp_model, optimizer, micro_batches):
    optimizer.zero_grad()
    terms = sum(y.numel() for _, y in micro_batches)  # samples x outputs: what a mean over everything divides by
    loss_sum = 0.0
    with ddp_model.no_sync():
        for x, y in micro_batches[:-1]:
            loss = F.mse_loss(ddp_model(x), y, reduction="sum")
            loss.backward()
            loss_sum += loss.item()
    x, y = micro_batches[-1]
    loss = F.mse_loss(ddp_model(x), y, reduction="sum")
    loss.backward()
    loss_sum += loss.item()
    with torch.no_grad():
        for p in ddp_model.parameters():
            p.grad /= terms
    optimizer.step()
    return loss_sum / terms
