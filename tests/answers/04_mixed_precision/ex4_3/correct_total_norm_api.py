# correct: torch.nn.utils.get_total_norm and clip_grads_with_norm_ (clip_grad_norm_ in two calls), on the optimizer's parameters
def clipped_amp_step(model, x, y, optimizer, loss_fn, dtype, scaler, max_norm):
    """Exercise 4.3: an AMP step with gradient clipping; returns (loss, norm of the unscaled gradients)."""
    if dtype == torch.float16 and scaler is None:
        raise ValueError("float16 autocast needs a GradScaler")
    params = [p for group in optimizer.param_groups for p in group["params"]]
    optimizer.zero_grad()
    with torch.autocast(device_type=x.device.type, dtype=dtype, enabled=dtype != torch.float32):
        loss = loss_fn(model(x), y)
    (loss if scaler is None else scaler.scale(loss)).backward()
    if scaler is not None:
        scaler.unscale_(optimizer)
    grads = [p.grad for p in params if p.grad is not None]
    total = torch.nn.utils.get_total_norm(grads, norm_type=2.0)
    torch.nn.utils.clip_grads_with_norm_(params, max_norm, total)
    if scaler is None:
        optimizer.step()
    else:
        scaler.step(optimizer)
        scaler.update()
    return loss.item(), total.item()
