# caught by the visible tests
# wrong: first lr already multiplied once (starts at start*ratio)
def lr_schedule(start, end, num_iter):
    """Exercise 6.1: num_iter learning rates, geometric from start to end (both included)."""
    ratio = (end / start) ** (1 / num_iter)
    return [start * ratio ** (i + 1) for i in range(num_iter)]
