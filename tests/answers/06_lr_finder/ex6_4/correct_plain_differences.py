# correct: plain loss differences (the ramp is geometric, so log(lr) steps are equal), returns the later point
def suggest_lr(lrs, losses):
    """Exercise 6.4: the lr of steepest descent of `losses` against log(lr), up to the minimum."""
    i_min = losses.index(min(losses))
    if i_min == 0:
        return float(lrs[0])
    drops = [losses[i] - losses[i - 1] for i in range(1, i_min + 1)]
    return float(lrs[1 + drops.index(min(drops))])
