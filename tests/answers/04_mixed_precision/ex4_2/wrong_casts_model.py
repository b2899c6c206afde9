# wrong: casts the model and the input to the low dtype instead of using autocast
def amp_step(model, x, y, optimizer, loss_fn, dtype, scaler=None):
    """Exercise 4.2: one mixed-precision training step; returns the (unscaled) loss as a float."""
    if dtype == torch.float16 and scaler is None:
        raise ValueError("float16 needs a GradScaler")
    optimizer.zero_grad(set_to_none=True)
    model.to(dtype)
    loss = loss_fn(model(x.to(dtype)), y.to(dtype) if y.is_floating_point() else y)
    if scaler is None:
        loss.backward()
        optimizer.step()
    else:
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
    return loss.item()
