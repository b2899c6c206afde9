# correct: norm of all gradients concatenated, factor without the 1e-6, returns a float
def clip_by_global_norm_(parameters, max_norm):
    """Exercise 8.3: scale all gradients in place so that their global 2-norm is at most max_norm."""
    params = [p for p in parameters if p.grad is not None]
    total = math.sqrt(sum(float((p.grad.double() ** 2).sum()) for p in params))
    if total > max_norm:
        for p in params:
            p.grad *= max_norm / total
    return total
