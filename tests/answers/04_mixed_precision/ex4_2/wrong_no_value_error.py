# caught by the visible tests
# wrong: runs float16 without a scaler instead of refusing
def amp_step(model, x, y, optimizer, loss_fn, dtype, scaler=None):
    """Exercise 4.2: one mixed-precision training step; returns the (unscaled) loss as a float."""
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
    return loss.item()
