# caught by the visible tests
# wrong: starts the average at the first loss and corrects anyway (double-counts the start)
def smooth_losses(losses, beta=0.98):
    """Exercise 6.2: bias-corrected exponential moving average of `losses` (a list of floats)."""
    avg, out = float(losses[0]), []
    for t, loss in enumerate(losses, start=1):
        avg = beta * avg + (1 - beta) * loss
        out.append(avg / (1 - beta**t))
    return out
