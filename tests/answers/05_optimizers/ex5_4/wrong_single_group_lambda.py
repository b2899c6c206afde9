# caught by the visible tests
# wrong: the closed form computed from the first group's lr and written into every group
def warmup_cosine(optimizer, warmup_steps, total_steps, start_factor=0.01, eta_min=0.0):
    """Exercise 5.4: linear warmup for warmup_steps, then cosine to eta_min at total_steps (SequentialLR)."""
    base = optimizer.param_groups[0]["lr"]

    def factor(t):
        if t < warmup_steps:
            return start_factor + (1 - start_factor) * t / warmup_steps
        cos = 0.5 * (1 + math.cos(math.pi * (t - warmup_steps) / (total_steps - warmup_steps)))
        return (eta_min + (base - eta_min) * cos) / base
    return torch.optim.lr_scheduler.LambdaLR(optimizer, factor)
