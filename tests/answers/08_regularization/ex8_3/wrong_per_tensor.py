# caught by the visible tests
# wrong: clips each gradient tensor by its own norm instead of one global norm
def clip_by_global_norm_(parameters, max_norm):
    """Exercise 8.3: scale all gradients in place so that their global NORM_TYPE-norm is at most max_norm."""
    params = [p for p in parameters if p.grad is not None]
    total = torch.sqrt(sum((p.grad ** 2).sum() for p in params))
    for p in params:
        n = p.grad.norm()
        if n > max_norm:
            p.grad.mul_(max_norm / (n + 1e-6))
    return total
