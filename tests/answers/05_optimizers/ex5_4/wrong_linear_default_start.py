# caught by the visible tests
# wrong: start_factor not passed to LinearLR, which then starts at its own default of 1/3
def warmup_cosine(optimizer, warmup_steps, total_steps, start_factor=0.01, eta_min=0.0):
    """Exercise 5.4: linear warmup for warmup_steps, then cosine to eta_min at total_steps (SequentialLR)."""
    warmup = LinearLR(optimizer, total_iters=warmup_steps)
    cosine = CosineAnnealingLR(optimizer, T_max=total_steps - warmup_steps, eta_min=eta_min)
    return SequentialLR(optimizer, [warmup, cosine], milestones=[warmup_steps])
