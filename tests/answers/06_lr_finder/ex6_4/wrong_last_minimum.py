# wrong: `<=` in the scan for the minimum keeps the last of equal lowest values, not the first
def suggest_lr(lrs, losses):
    """Exercise 6.4: the lr of steepest descent of `losses` against log(lr), up to the minimum."""
    i_min, best = 0, losses[0]
    for i, loss in enumerate(losses):
        if loss <= best:
            i_min, best = i, loss
    if i_min == 0:
        return float(lrs[0])
    slopes = [(losses[i + 1] - losses[i]) / (math.log(lrs[i + 1]) - math.log(lrs[i])) for i in range(i_min)]
    return float(lrs[slopes.index(min(slopes))])
