# wrong: draws the mask with numpy's generator, which torch.manual_seed does not reproduce
def dropout(x, p, training):
    """Exercise 8.1: inverted dropout; identity when training is False."""
    import numpy as np
    if not training:
        return x
    keep = torch.as_tensor(np.random.rand(*x.shape) >= p, device=x.device)
    return x * keep / (1 - p)
