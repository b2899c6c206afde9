# caught by the visible tests
# wrong: slope with respect to lr instead of log(lr), which favours small learning rates
def suggest_lr(lrs, losses):
    """Exercise 6.4: the lr of steepest descent of `losses` against log(lr), up to the minimum."""
    i_min = losses.index(min(losses))
    if i_min == 0:
        return float(lrs[0])
    slopes = [(losses[i + 1] - losses[i]) / (lrs[i + 1] - lrs[i]) for i in range(i_min)]
    return float(lrs[slopes.index(min(slopes))])
