# correct: torch.amp.autocast with positional arguments, model.zero_grad(), the float32 case as a separate branch
def amp_step(model, x, y, optimizer, loss_fn, dtype, scaler=None):
    """Exercise 4.2: one mixed-precision training step; returns the (unscaled) loss as a float."""
    if scaler is None and dtype is torch.float16:
        raise ValueError("float16 without a GradScaler loses the gradients that underflow")
    model.zero_grad()
    if dtype == torch.float32:
        loss = loss_fn(model(x), y)
    else:
        with torch.amp.autocast(x.device.type, dtype):
            loss = loss_fn(model(x), y)
    if scaler is not None:
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
    else:
        loss.backward()
        optimizer.step()
    return float(loss.detach())
