# correct: one scan for the first minimum with `<`, backward differences in log10(lr), returned as the later point
def suggest_lr(lrs, losses):
    """Exercise 6.4: the lr of steepest descent of `losses` against log(lr), up to the minimum."""
    i_min = 0
    for i in range(1, len(losses)):
        if losses[i] < losses[i_min]:
            i_min = i
    best_i, best_slope = 0, 0.0
    for i in range(1, i_min + 1):
        slope = (losses[i] - losses[i - 1]) / (math.log10(lrs[i]) - math.log10(lrs[i - 1]))
        if slope < best_slope:
            best_i, best_slope = i, slope
    return float(lrs[best_i])
