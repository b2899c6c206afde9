# caught by the visible tests
# wrong: the non-inverted formulation: no scaling in training, outputs times (1-p) at inference
def dropout(x, p, training):
    """Exercise 8.1: inverted dropout; identity when training is False."""
    if training:
        return x * (torch.rand_like(x) >= p)
    return x * (1 - p)
