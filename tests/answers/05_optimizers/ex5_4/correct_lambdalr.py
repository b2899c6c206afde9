# correct: the closed form written as one LambdaLR per param group
def warmup_cosine(optimizer, warmup_steps, total_steps, start_factor=0.01, eta_min=0.0):
    """Exercise 5.4: linear warmup for warmup_steps, then cosine to eta_min at total_steps (SequentialLR)."""
    def factor_for(base):
        def factor(t):
            if t < warmup_steps:
                return start_factor + (1 - start_factor) * t / warmup_steps
            cos = 0.5 * (1 + math.cos(math.pi * (t - warmup_steps) / (total_steps - warmup_steps)))
            return (eta_min + (base - eta_min) * cos) / base
        return factor
    return torch.optim.lr_scheduler.LambdaLR(optimizer, [factor_for(g["lr"]) for g in optimizer.param_groups])
