# caught by the visible tests
# wrong: ChainedScheduler runs both schedulers at once instead of one after the other
def warmup_cosine(optimizer, warmup_steps, total_steps, start_factor=0.01, eta_min=0.0):
    """Exercise 5.4: linear warmup for warmup_steps, then cosine to eta_min at total_steps (SequentialLR)."""
    warmup = LinearLR(optimizer, start_factor=start_factor, total_iters=warmup_steps)
    cosine = CosineAnnealingLR(optimizer, T_max=total_steps - warmup_steps, eta_min=eta_min)
    return torch.optim.lr_scheduler.ChainedScheduler([warmup, cosine])
