# caught by the visible tests
# wrong: keeps each element with probability p (zeroes with 1-p)
def dropout(x, p, training):
    """Exercise 8.1: inverted dropout; identity when training is False."""
    if not training:
        return x
    return x * (torch.rand_like(x) < p) / (1 - p)
