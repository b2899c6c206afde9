# correct: multiply by a constant ratio at every step
def lr_schedule(start, end, num_iter):
    """Exercise 6.1: num_iter learning rates, geometric from start to end (both included)."""
    ratio = (end / start) ** (1 / (num_iter - 1))
    lrs = [start]
    for _ in range(num_iter - 1):
        lrs.append(lrs[-1] * ratio)
    return lrs
