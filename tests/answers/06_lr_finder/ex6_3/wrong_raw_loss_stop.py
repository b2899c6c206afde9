# caught by the visible tests
# wrong: no smoothing: records and compares the raw loss
def lr_find(model, optimizer, loss_fn, batches, start=1e-7, end=10.0, num_iter=100, beta=0.98, diverge=4.0):
    """Exercise 6.3: LR range test; returns (lrs, smoothed_losses) and leaves model and optimizer as they were."""
    saved_model = copy.deepcopy(model.state_dict())
    saved_opt = copy.deepcopy(optimizer.state_dict())
    lrs, losses = [], []
    avg, best = 0.0, math.inf
    try:
        for i, lr in enumerate(lr_schedule(start, end, num_iter)):
            for group in optimizer.param_groups:
                group["lr"] = lr
            x, y = batches[i % len(batches)]
            loss = loss_fn(model(x), y)
            value = loss.item()
            if not math.isfinite(value):
                break
            avg = beta * avg + (1 - beta) * value
            smoothed = avg / (1 - beta ** (i + 1))
            lrs.append(lr)
            losses.append(value)
            if value > diverge * best:
                break
            best = min(best, value)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    finally:
        model.load_state_dict(saved_model)
        optimizer.load_state_dict(saved_opt)
    return lrs, losses
