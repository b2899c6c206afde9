# caught by the visible tests
# wrong: builds a new tensor from Python numbers, cutting the autograd graph
# Exercise 1.4
def target_log_probs(log_probs, targets):
    """log_probs (..., C), targets (...) int64 -> log_probs[..., targets] of shape (...), differentiable."""
    C = log_probs.shape[-1]
    flat, t = log_probs.reshape(-1, C), targets.reshape(-1)
    vals = [flat[i, t[i]].item() for i in range(t.shape[0])]
    return torch.tensor(vals, dtype=log_probs.dtype, device=log_probs.device).reshape(targets.shape)
