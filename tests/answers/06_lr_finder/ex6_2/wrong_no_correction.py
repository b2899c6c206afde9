# caught by the visible tests
# wrong: no bias correction
def smooth_losses(losses, beta=0.98):
    """Exercise 6.2: bias-corrected exponential moving average of `losses` (a list of floats)."""
    avg, out = 0.0, []
    for loss in losses:
        avg = beta * avg + (1 - beta) * loss
        out.append(avg)
    return out
