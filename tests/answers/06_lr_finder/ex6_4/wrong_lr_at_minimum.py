# caught by the visible tests
# wrong: the lr at the minimum of the curve
def suggest_lr(lrs, losses):
    """Exercise 6.4: the lr of steepest descent of `losses` against log(lr), up to the minimum."""
    return float(lrs[losses.index(min(losses))])
