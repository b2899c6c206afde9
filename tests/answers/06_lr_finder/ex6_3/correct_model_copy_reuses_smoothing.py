# correct: restores from a deep copy of the whole model, smooths with smooth_losses (6.2) over the raw losses so far
def lr_find(model, optimizer, loss_fn, batches, start=1e-7, end=10.0, num_iter=100, beta=0.98, diverge=4.0):
    """Exercise 6.3: LR range test; returns (lrs, smoothed_losses) and leaves model and optimizer as they were."""
    model_backup = copy.deepcopy(model)
    opt_backup = copy.deepcopy(optimizer.state_dict())
    raw, lrs, losses = [], [], []
    try:
        for i, lr in enumerate(lr_schedule(start, end, num_iter)):
            for group in optimizer.param_groups:
                group.update(lr=lr)
            x, y = batches[i % len(batches)]
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            if math.isnan(loss.item()) or math.isinf(loss.item()):
                break
            raw.append(loss.item())
            smoothed = smooth_losses(raw, beta)[-1]
            stop = bool(losses) and smoothed > diverge * min(losses)
            lrs.append(lr)
            losses.append(smoothed)
            if stop:
                break
            loss.backward()
            optimizer.step()
    finally:
        model.load_state_dict(model_backup.state_dict())
        optimizer.load_state_dict(opt_backup)
    return lrs, losses
