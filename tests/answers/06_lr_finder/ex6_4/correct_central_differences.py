# correct: central differences with torch.gradient against log10(lr), restricted to the points before the minimum
def suggest_lr(lrs, losses):
    """Exercise 6.4: the lr of steepest descent of `losses` against log(lr), up to the minimum."""
    loss = torch.tensor([float(v) for v in losses], dtype=torch.float64)
    i_min = int(loss.argmin())
    if i_min == 0:
        return float(lrs[0])
    u = torch.log10(torch.tensor([float(v) for v in lrs[: i_min + 1]], dtype=torch.float64))
    (slope,) = torch.gradient(loss[: i_min + 1], spacing=(u,))
    return float(lrs[int(slope.argmin())])
