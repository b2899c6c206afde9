# caught by the visible tests
# wrong: linear ramp
def lr_schedule(start, end, num_iter):
    """Exercise 6.1: num_iter learning rates, geometric from start to end (both included)."""
    return torch.linspace(start, end, num_iter, dtype=torch.float64).tolist()
