# correct: calls torch's own implementation
def clip_by_global_norm_(parameters, max_norm):
    """Exercise 8.3: scale all gradients in place so that their global 2-norm is at most max_norm."""
    return torch.nn.utils.clip_grad_norm_(parameters, max_norm)
