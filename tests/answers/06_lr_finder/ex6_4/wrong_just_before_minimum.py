# caught by the visible tests
# wrong: "the lr just before the minimum" (one point before it)
def suggest_lr(lrs, losses):
    """Exercise 6.4: the lr of steepest descent of `losses` against log(lr), up to the minimum."""
    i_min = losses.index(min(losses))
    return float(lrs[max(i_min - 1, 0)])
