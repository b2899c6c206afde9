# correct: the NORM_TYPE-norm of all gradients concatenated, in float64 Python arithmetic, factor without the
# 1e-6, returns a float
def clip_by_global_norm_(parameters, max_norm):
    """Exercise 8.3: scale all gradients in place so that their global NORM_TYPE-norm is at most max_norm."""
    norm_type = NORM_TYPE  # your variant's p: 2.0 (Euclidean), 1.0 or 3.0
    params = [p for p in parameters if p.grad is not None]
    total = sum(float((p.grad.double().abs() ** norm_type).sum()) for p in params) ** (1 / norm_type)
    if total > max_norm:
        for p in params:
            p.grad *= max_norm / total
    return total
