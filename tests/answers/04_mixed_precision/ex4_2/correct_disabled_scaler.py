# correct: one code path, with a disabled GradScaler standing in when none is given
def amp_step(model, x, y, optimizer, loss_fn, dtype, scaler=None):
    """Exercise 4.2: one mixed-precision training step; returns the (unscaled) loss as a float."""
    if scaler is None:
        if dtype == torch.float16:
            raise ValueError("float16 needs a GradScaler")
        scaler = torch.amp.GradScaler(x.device.type, enabled=False)
    optimizer.zero_grad()
    with torch.autocast(device_type=x.device.type, dtype=dtype, enabled=dtype in (torch.float16, torch.bfloat16)):
        loss = loss_fn(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    return loss.item()
