# wrong: a generator seeded inside the function draws the same mask at every call
def dropout(x, p, training):
    """Exercise 8.1: inverted dropout; identity when training is False."""
    if not training:
        return x
    g = torch.Generator(device=x.device).manual_seed(0)
    keep = torch.rand(x.shape, generator=g, device=x.device, dtype=x.dtype) >= p
    return x * keep / (1 - p)
