# correct: records the non-finite point, then stops (the NaN itself is not plotted anyway)
def lr_find(model, optimizer, loss_fn, batches, start=1e-7, end=10.0, num_iter=100, beta=0.98, diverge=4.0):
    """Exercise 6.3: LR range test; returns (lrs, smoothed_losses) and leaves model and optimizer as they were."""
    state = copy.deepcopy((model.state_dict(), optimizer.state_dict()))
    lrs, losses = [], []
    avg, best = 0.0, math.inf
    for i, lr in enumerate(lr_schedule(start, end, num_iter)):
        for group in optimizer.param_groups:
            group["lr"] = lr
        x, y = batches[i % len(batches)]
        loss = loss_fn(model(x), y)
        avg = beta * avg + (1 - beta) * loss.item()
        smoothed = avg / (1 - beta ** (i + 1))
        lrs.append(lr)
        losses.append(smoothed)
        if not math.isfinite(smoothed) or smoothed > diverge * best:
            break
        best = min(best, smoothed)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    model.load_state_dict(state[0])
    optimizer.load_state_dict(state[1])
    return lrs, losses
