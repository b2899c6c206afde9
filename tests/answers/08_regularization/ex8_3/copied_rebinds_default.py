# copied_default.py with the default's value bound again at the top of the answer cell, so that a test
# that builds its inputs from NORM_TYPE builds them for the default: the hidden tests bind the student's
# own value again before they run, so it still fails
NORM_TYPE = 2.0
def clip_by_global_norm_(parameters, max_norm):
    """Exercise 8.3: scale all gradients in place so that their global NORM_TYPE-norm is at most max_norm."""
    norm_type = NORM_TYPE  # your variant's p: 2.0 (Euclidean), 1.0 or 3.0
    grads = [p.grad for p in parameters if p.grad is not None]
    if not grads:
        return torch.tensor(0.0)
    total = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(g) for g in grads]))
    if total > max_norm:
        factor = max_norm / (total + 1e-6)
        for g in grads:
            g.mul_(factor)
    return total
