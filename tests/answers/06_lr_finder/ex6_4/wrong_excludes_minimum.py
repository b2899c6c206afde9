# wrong: slopes over losses[:i_min] only, so the step into the minimum is left out
def suggest_lr(lrs, losses):
    """Exercise 6.4: the lr of steepest descent of `losses` against log(lr), up to the minimum."""
    i_min = losses.index(min(losses))
    if i_min <= 1:
        return float(lrs[0])
    head = losses[:i_min]
    slopes = [(head[i + 1] - head[i]) / (math.log(lrs[i + 1]) - math.log(lrs[i])) for i in range(len(head) - 1)]
    return float(lrs[slopes.index(min(slopes))])
