# correct: computes the total norm and scales the gradients by hand, after unscale_
def clipped_amp_step(model, x, y, optimizer, loss_fn, dtype, scaler, max_norm):
    """Exercise 4.3: an AMP step with gradient clipping; returns (loss, norm of the unscaled gradients)."""
    if dtype == torch.float16 and scaler is None:
        raise ValueError("float16 needs a GradScaler")
    optimizer.zero_grad()
    with torch.autocast(device_type=x.device.type, dtype=dtype, enabled=dtype != torch.float32):
        loss = loss_fn(model(x), y)
    if scaler is not None:
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
    else:
        loss.backward()
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    norm = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(g) for g in grads]))
    coef = torch.clamp(max_norm / (norm + 1e-6), max=1.0)
    for g in grads:
        g.mul_(coef)
    if scaler is not None:
        scaler.step(optimizer)
        scaler.update()
    else:
        optimizer.step()
    return loss.item(), norm.item()
