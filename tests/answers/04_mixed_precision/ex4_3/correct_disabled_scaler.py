# correct: one code path with a disabled GradScaler when none is given (unscale_ is then a no-op)
def clipped_amp_step(model, x, y, optimizer, loss_fn, dtype, scaler, max_norm):
    """Exercise 4.3: an AMP step with gradient clipping; returns (loss, norm of the unscaled gradients)."""
    if scaler is None:
        if dtype == torch.float16:
            raise ValueError("float16 needs a GradScaler")
        scaler = torch.amp.GradScaler(x.device.type, enabled=False)
    with torch.autocast(x.device.type, dtype=dtype, enabled=dtype != torch.float32):
        loss = loss_fn(model(x), y)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    norm = float(torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=max_norm))
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
    return float(loss), norm
