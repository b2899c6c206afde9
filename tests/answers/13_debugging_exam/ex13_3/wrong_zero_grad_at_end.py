# clears the gradients at the end of the step, not first (step 1 of the text's order): gradients already
# in .grad when the step starts are added to its own
def train_step(model, x, y, optimizer, scaler, max_norm=MAX_NORM):
    """Exercise 13.3: one AMP training step with gradient clipping; returns the loss."""
    with torch.autocast(device_type=next(model.parameters()).device.type, dtype=AMP_DTYPE):
        loss = F.cross_entropy(model(x), y)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad()
    return loss
