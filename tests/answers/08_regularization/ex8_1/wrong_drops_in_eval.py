# caught by the visible tests
# wrong: ignores the training flag and drops in eval mode too
def dropout(x, p, training):
    """Exercise 8.1: inverted dropout; identity when training is False."""
    return x * (torch.rand_like(x) >= p) / (1 - p)
