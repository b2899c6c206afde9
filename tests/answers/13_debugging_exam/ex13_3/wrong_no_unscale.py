def train_step(model, x, y, optimizer, scaler, max_norm=MAX_NORM):
    """Exercise 13.3: one AMP training step with gradient clipping; returns the loss."""
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast(device_type=next(model.parameters()).device.type, dtype=AMP_DTYPE):
        loss = F.cross_entropy(model(x), y)
    scaler.scale(loss).backward()
    nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    return loss
