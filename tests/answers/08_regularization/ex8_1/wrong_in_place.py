# caught by the visible tests
# wrong: modifies the input in place
def dropout(x, p, training):
    """Exercise 8.1: inverted dropout; identity when training is False."""
    if not training:
        return x
    return x.mul_(torch.rand_like(x) >= p).div_(1 - p)
