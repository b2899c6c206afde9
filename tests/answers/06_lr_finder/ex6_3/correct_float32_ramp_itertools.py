# correct: its own float32 ramp, itertools.cycle over the batches, manual state copies, restore in finally
def lr_find(model, optimizer, loss_fn, batches, start=1e-7, end=10.0, num_iter=100, beta=0.98, diverge=4.0):
    """Exercise 6.3: LR range test; returns (lrs, smoothed_losses) and leaves model and optimizer as they were."""
    import itertools
    saved_params = {k: v.detach().clone() for k, v in model.state_dict().items()}
    saved_opt = copy.deepcopy(optimizer.state_dict())
    ramp = torch.exp(torch.linspace(math.log(start), math.log(end), num_iter)).tolist()
    lrs, losses, raw = [], [], []
    best = float("inf")
    try:
        for lr, (x, y) in zip(ramp, itertools.cycle(batches)):
            for group in optimizer.param_groups:
                group["lr"] = lr
            optimizer.zero_grad(set_to_none=True)
            loss = loss_fn(model(x), y)
            if torch.isnan(loss) or torch.isinf(loss):
                break
            raw.append(loss.item())
            smoothed = smooth_losses(raw, beta)[-1]
            lrs.append(lr)
            losses.append(smoothed)
            if smoothed > diverge * best:
                break
            if smoothed < best:
                best = smoothed
            loss.backward()
            optimizer.step()
    finally:
        with torch.no_grad():
            for k, v in model.state_dict().items():
                v.copy_(saved_params[k])
        optimizer.load_state_dict(saved_opt)
    return lrs, losses
