# caught by the visible tests
# wrong: survivors multiplied by (1-p) instead of divided by it
def dropout(x, p, training):
    """Exercise 8.1: inverted dropout; identity when training is False."""
    if not training:
        return x
    return x * (torch.rand_like(x) >= p) * (1 - p)
