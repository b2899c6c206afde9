# caught by the visible tests
# wrong: clamps each gradient element to [-max_norm, max_norm] (that is clip_grad_value_)
def clip_by_global_norm_(parameters, max_norm):
    """Exercise 8.3: scale all gradients in place so that their global NORM_TYPE-norm is at most max_norm."""
    params = [p for p in parameters if p.grad is not None]
    total = torch.sqrt(sum((p.grad ** 2).sum() for p in params))
    for p in params:
        p.grad.clamp_(-max_norm, max_norm)
    return total
