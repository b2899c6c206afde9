# caught by the visible tests
# wrong: returns a tensor (whose elements set as group["lr"] are tensors), not a list of floats
def lr_schedule(start, end, num_iter):
    """Exercise 6.1: num_iter learning rates, geometric from start to end (both included)."""
    return torch.logspace(math.log10(start), math.log10(end), num_iter, dtype=torch.float64)
