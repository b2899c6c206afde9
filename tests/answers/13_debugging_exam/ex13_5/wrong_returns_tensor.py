def make_scheduler(optimizer, epochs, warmup_epochs=1):
    """Exercise 13.5: linear warm-up over warmup_epochs, then a cosine to 0 at `epochs`; one step per epoch."""
    warmup = LinearLR(optimizer, start_factor=WARMUP_START, total_iters=warmup_epochs)
    cosine = CosineAnnealingLR(optimizer, T_max=epochs - warmup_epochs)
    return SequentialLR(optimizer, [warmup, cosine], milestones=[warmup_epochs])


def train_one_epoch(model, loader, optimizer, scheduler, scaler, max_norm=1.0):
    """Exercise 13.5: one epoch of train_step; returns the mean training loss per sample (a float)."""
    model.train()
    running, n = 0.0, 0
    for x, y in loader:
        loss = train_step(model, x, y, optimizer, scaler, max_norm)
        running += loss.detach() * len(y)
        n += len(y)
    scheduler.step()
    return running / n
