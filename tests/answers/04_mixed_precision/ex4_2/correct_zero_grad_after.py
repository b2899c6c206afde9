# correct: zeroes the gradients after the step, nullcontext for float32, positional autocast args
import contextlib


def amp_step(model, x, y, optimizer, loss_fn, dtype, scaler=None):
    """Exercise 4.2: one mixed-precision training step; returns the (unscaled) loss as a float."""
    if scaler is None and dtype is torch.float16:
        raise ValueError("no GradScaler for float16")
    ctx = contextlib.nullcontext() if dtype == torch.float32 else torch.autocast(x.device.type, dtype)
    with ctx:
        out = model(x)
        loss = loss_fn(out, y)
    if scaler is not None:
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
    else:
        loss.backward()
        optimizer.step()
    optimizer.zero_grad()
    return float(loss.detach())
