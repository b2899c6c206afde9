# correct: SequentialLR with keyword arguments and the default end_factor
def warmup_cosine(optimizer, warmup_steps, total_steps, start_factor=0.01, eta_min=0.0):
    """Exercise 5.4: linear warmup for warmup_steps, then cosine to eta_min at total_steps (SequentialLR)."""
    return SequentialLR(
        optimizer,
        schedulers=[LinearLR(optimizer, start_factor, total_iters=warmup_steps),
                    CosineAnnealingLR(optimizer, total_steps - warmup_steps, eta_min)],
        milestones=[warmup_steps])
