# caught by the visible tests
# wrong: returns a tensor, not a list of floats
def smooth_losses(losses, beta=0.98):
    """Exercise 6.2: bias-corrected exponential moving average of `losses` (a list of floats)."""
    avg, out = 0.0, []
    for k, loss in enumerate(losses):
        avg = beta * avg + (1 - beta) * float(loss)
        out.append(avg / (1 - beta ** (k + 1)))
    return torch.tensor(out, dtype=torch.float64)
