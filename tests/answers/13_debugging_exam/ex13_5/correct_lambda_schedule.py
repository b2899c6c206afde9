def make_scheduler(optimizer, epochs, warmup_epochs=1):
    def factor(e):
        if e < warmup_epochs:
            return WARMUP_START + (1 - WARMUP_START) * e / warmup_epochs
        return 0.5 * (1 + math.cos(math.pi * (e - warmup_epochs) / (epochs - warmup_epochs)))
    return torch.optim.lr_scheduler.LambdaLR(optimizer, factor)


def train_one_epoch(model, loader, optimizer, scheduler, scaler, max_norm=1.0):
    model.train()
    sums = []
    for batch in loader:
        x, y = batch
        sums.append((train_step(model, x, y, optimizer, scaler, max_norm=max_norm).item() * len(y), len(y)))
    scheduler.step()
    return sum(s for s, _ in sums) / sum(k for _, k in sums)
