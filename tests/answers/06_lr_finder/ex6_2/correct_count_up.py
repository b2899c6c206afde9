# correct: keeps a running power of beta instead of beta ** t
def smooth_losses(losses, beta=0.98):
    """Exercise 6.2: bias-corrected exponential moving average of `losses` (a list of floats)."""
    avg, power, out = 0.0, 1.0, []
    for loss in losses:
        avg = beta * avg + (1 - beta) * loss
        power *= beta
        out.append(avg / (1 - power))
    return out
