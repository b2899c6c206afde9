# wrong: calls backward() (and clips) inside the autocast block
def clipped_amp_step(model, x, y, optimizer, loss_fn, dtype, scaler, max_norm):
    """Exercise 4.3: an AMP step with gradient clipping; returns (loss, norm of the unscaled gradients)."""
    if dtype == torch.float16 and scaler is None:
        raise ValueError("float16 needs a GradScaler")
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast(device_type=x.device.type, dtype=dtype, enabled=dtype != torch.float32):
        loss = loss_fn(model(x), y)
        if scaler is None:
            loss.backward()
            norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
            optimizer.step()
        else:
            scaler.scale(loss).backward()
            scaler.unscale_(optimizer)
            norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
            scaler.step(optimizer)
            scaler.update()
    return loss.item(), norm.item()
