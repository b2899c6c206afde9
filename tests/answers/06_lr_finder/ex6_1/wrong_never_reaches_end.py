# caught by the visible tests
# wrong: exponent i/num_iter, so the last lr stops one ratio short of `end`
def lr_schedule(start, end, num_iter):
    """Exercise 6.1: num_iter learning rates, geometric from start to end (both included)."""
    return [start * (end / start) ** (i / num_iter) for i in range(num_iter)]
