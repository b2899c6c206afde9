# caught by the visible tests
# wrong: eta_min not passed to the cosine (anneals to 0)
def warmup_cosine(optimizer, warmup_steps, total_steps, start_factor=0.01, eta_min=0.0):
    """Exercise 5.4: linear warmup for warmup_steps, then cosine to eta_min at total_steps (SequentialLR)."""
    warmup = LinearLR(optimizer, start_factor=start_factor, total_iters=warmup_steps)
    cosine = CosineAnnealingLR(optimizer, T_max=total_steps - warmup_steps)
    return SequentialLR(optimizer, [warmup, cosine], milestones=[warmup_steps])
