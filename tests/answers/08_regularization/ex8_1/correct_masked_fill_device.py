# correct: the drop mask drawn with device=x.device, applied with masked_fill_ on a scaled copy
def dropout(x, p, training):
    """Exercise 8.1: inverted dropout; identity when training is False."""
    if not training:
        return x
    out = x / (1 - p)
    return out.masked_fill_(torch.rand(x.shape, device=x.device) < p, 0.0)
