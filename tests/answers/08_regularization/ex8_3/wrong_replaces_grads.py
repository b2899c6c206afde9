# wrong: assigns new gradient tensors (p.grad = p.grad * factor) instead of scaling them in place
def clip_by_global_norm_(parameters, max_norm):
    """Exercise 8.3: scale all gradients in place so that their global NORM_TYPE-norm is at most max_norm."""
    params = [p for p in parameters if p.grad is not None]
    total = torch.linalg.vector_norm(torch.stack([p.grad.norm() for p in params]))
    if total > max_norm:
        for p in params:
            p.grad = p.grad * (max_norm / (total + 1e-6))
    return total
