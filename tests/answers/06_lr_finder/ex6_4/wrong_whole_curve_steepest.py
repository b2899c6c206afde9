# caught by the visible tests
# wrong: the steepest descent over the whole curve, not only up to the minimum
def suggest_lr(lrs, losses):
    """Exercise 6.4: the lr of steepest descent of `losses` against log(lr), up to the minimum."""
    if losses.index(min(losses)) == 0:
        return float(lrs[0])
    slopes = [(losses[i + 1] - losses[i]) / (math.log(lrs[i + 1]) - math.log(lrs[i])) for i in range(len(losses) - 1)]
    return float(lrs[slopes.index(min(slopes))])
