# correct: exp of a float32 linspace in log space (float32 precision), as a list
def lr_schedule(start, end, num_iter):
    """Exercise 6.1: num_iter learning rates, geometric from start to end (both included)."""
    return torch.exp(torch.linspace(math.log(start), math.log(end), num_iter)).tolist()
