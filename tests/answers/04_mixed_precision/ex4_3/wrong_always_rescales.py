# wrong: rescales the gradients to norm max_norm even when their norm is already below it
def clipped_amp_step(model, x, y, optimizer, loss_fn, dtype, scaler, max_norm):
    """Exercise 4.3: an AMP step with gradient clipping; returns (loss, norm of the unscaled gradients)."""
    if dtype == torch.float16 and scaler is None:
        raise ValueError("float16 needs a GradScaler")
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast(device_type=x.device.type, dtype=dtype, enabled=dtype != torch.float32):
        loss = loss_fn(model(x), y)
    if scaler is None:
        loss.backward()
    else:
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    norm = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(g) for g in grads]))
    for g in grads:
        g.mul_(max_norm / (norm + 1e-6))
    if scaler is None:
        optimizer.step()
    else:
        scaler.step(optimizer)
        scaler.update()
    return loss.item(), norm.item()
