# caught by the visible tests
# wrong: returns the loss tensor instead of a Python float
def amp_step(model, x, y, optimizer, loss_fn, dtype, scaler=None):
    """Exercise 4.2: one mixed-precision training step; returns the (unscaled) loss as a float."""
    if dtype == torch.float16 and scaler is None:
        raise ValueError("float16 needs a GradScaler")
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast(device_type=x.device.type, dtype=dtype, enabled=dtype != torch.float32):
        loss = loss_fn(model(x), y)
    if scaler is None:
        loss.backward()
        optimizer.step()
    else:
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
    return loss.detach()
