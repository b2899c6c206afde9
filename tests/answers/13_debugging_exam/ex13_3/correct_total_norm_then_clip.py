def train_step(model, x, y, optimizer, scaler, max_norm=MAX_NORM):
    """Exercise 13.3: one AMP training step with gradient clipping; returns the loss."""
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast(device_type=next(model.parameters()).device.type, dtype=AMP_DTYPE):
        loss = F.cross_entropy(model(x), y)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    params = [p for group in optimizer.param_groups for p in group["params"]]
    grads = [p.grad for p in params if p.grad is not None]
    nn.utils.clip_grads_with_norm_(params, max_norm, nn.utils.get_total_norm(grads))
    scaler.step(optimizer)
    scaler.update()
    return loss
