# caught by the visible tests
# wrong: walks the parameters iterable twice; a generator is empty the second time, so nothing is clipped
def clip_by_global_norm_(parameters, max_norm):
    """Exercise 8.3: scale all gradients in place so that their global NORM_TYPE-norm is at most max_norm."""
    total = torch.sqrt(sum((p.grad ** 2).sum() for p in parameters if p.grad is not None))
    if total > max_norm:
        for p in parameters:
            if p.grad is not None:
                p.grad.mul_(max_norm / (total + 1e-6))
    return total
