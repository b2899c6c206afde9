# correct: Bernoulli keep-mask with probability 1-p, scaled by 1/(1-p)
def dropout(x, p, training):
    """Exercise 8.1: inverted dropout; identity when training is False."""
    if not training:
        return x
    mask = torch.bernoulli(torch.full_like(x, 1 - p))
    return x * mask * (1.0 / (1 - p))
