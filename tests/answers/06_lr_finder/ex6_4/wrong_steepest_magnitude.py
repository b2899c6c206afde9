# caught by the visible tests
# wrong: the steepest slope in absolute value over the whole curve (finds the divergence)
def suggest_lr(lrs, losses):
    """Exercise 6.4: the lr of steepest descent of `losses` against log(lr), up to the minimum."""
    slopes = [abs(losses[i + 1] - losses[i]) / (math.log(lrs[i + 1]) - math.log(lrs[i])) for i in range(len(losses) - 1)]
    return float(lrs[slopes.index(max(slopes))])
