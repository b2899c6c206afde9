# caught by the visible tests
# wrong: torch.logspace given the learning rates instead of their log10
def lr_schedule(start, end, num_iter):
    """Exercise 6.1: num_iter learning rates, geometric from start to end (both included)."""
    return torch.logspace(start, end, num_iter, dtype=torch.float64).tolist()
