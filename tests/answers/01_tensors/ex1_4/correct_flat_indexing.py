# correct: flatten the leading axes, index with arange and targets, restore the shape
# Exercise 1.4
def target_log_probs(log_probs, targets):
    """log_probs (..., C), targets (...) int64 -> log_probs[..., targets] of shape (...), differentiable."""
    C = log_probs.shape[-1]
    flat = log_probs.reshape(-1, C)
    rows = torch.arange(flat.shape[0], device=flat.device)
    return flat[rows, targets.reshape(-1)].reshape(targets.shape)
