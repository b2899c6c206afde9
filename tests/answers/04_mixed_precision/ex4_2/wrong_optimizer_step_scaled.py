# caught by the visible tests
# wrong: scales the loss but steps the optimizer directly (scaled gradients, no skipping, no update)
def amp_step(model, x, y, optimizer, loss_fn, dtype, scaler=None):
    """Exercise 4.2: one mixed-precision training step; returns the (unscaled) loss as a float."""
    if dtype == torch.float16 and scaler is None:
        raise ValueError("float16 needs a GradScaler")
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast(device_type=x.device.type, dtype=dtype, enabled=dtype != torch.float32):
        loss = loss_fn(model(x), y)
    if scaler is None:
        loss.backward()
    else:
        scaler.scale(loss).backward()
    optimizer.step()
    return loss.item()
