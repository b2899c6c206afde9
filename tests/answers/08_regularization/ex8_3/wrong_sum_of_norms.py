# caught by the visible tests
# wrong: adds the per-tensor norms instead of combining them as a 2-norm
def clip_by_global_norm_(parameters, max_norm):
    """Exercise 8.3: scale all gradients in place so that their global NORM_TYPE-norm is at most max_norm."""
    params = [p for p in parameters if p.grad is not None]
    total = sum(p.grad.norm() for p in params)
    if total > max_norm:
        for p in params:
            p.grad.mul_(max_norm / (total + 1e-6))
    return total
