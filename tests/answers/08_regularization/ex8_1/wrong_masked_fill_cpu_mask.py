# wrong: draws the drop mask with torch.rand(x.shape), on the CPU, and applies it with masked_fill_ on a
# copy: meta takes a CPU mask in place, CUDA refuses it ("expected self and mask to be on the same device")
def dropout(x, p, training):
    """Exercise 8.1: inverted dropout; identity when training is False."""
    if not training:
        return x
    out = x / (1 - p)
    out.masked_fill_(torch.rand(x.shape) < p, 0.0)
    return out
