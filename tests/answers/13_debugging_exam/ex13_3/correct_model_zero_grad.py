def train_step(model, x, y, optimizer, scaler, max_norm=MAX_NORM):
    """Exercise 13.3: one AMP training step with gradient clipping; returns the loss."""
    model.zero_grad()
    with torch.autocast(device_type=next(model.parameters()).device.type, dtype=AMP_DTYPE):
        loss = F.cross_entropy(model(x), y)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_([p for p in model.parameters() if p.grad is not None], max_norm=max_norm)
    scaler.step(optimizer)
    scaler.update()
    return loss
