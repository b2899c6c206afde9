# caught by the visible tests
# wrong: beta and 1 - beta swapped (the new loss gets weight beta)
def smooth_losses(losses, beta=0.98):
    """Exercise 6.2: bias-corrected exponential moving average of `losses` (a list of floats)."""
    avg, out = 0.0, []
    for t, loss in enumerate(losses, start=1):
        avg = (1 - beta) * avg + beta * loss
        out.append(avg / (1 - (1 - beta) ** t))
    return out
