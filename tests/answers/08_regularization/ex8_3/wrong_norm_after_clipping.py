# caught by the visible tests
# wrong: returns the norm after clipping instead of the one measured before
def clip_by_global_norm_(parameters, max_norm):
    """Exercise 8.3: scale all gradients in place so that their global NORM_TYPE-norm is at most max_norm."""
    params = [p for p in parameters if p.grad is not None]
    total = torch.sqrt(sum((p.grad ** 2).sum() for p in params))
    if total > max_norm:
        for p in params:
            p.grad.mul_(max_norm / (total + 1e-6))
    return torch.sqrt(sum((p.grad ** 2).sum() for p in params))
