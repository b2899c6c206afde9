# correct: torch.where on a uniform draw made on x's device, eval returns a copy
def dropout(x, p, training):
    """Exercise 8.1: inverted dropout; identity when training is False."""
    if training:
        u = torch.rand(x.shape, device=x.device, dtype=x.dtype)
        return torch.where(u < p, torch.zeros_like(x), x / (1 - p))
    return x.clone()
