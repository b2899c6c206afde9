# wrong: a float32 one-hot mask: type promotion turns bfloat16 (or float16) log-probs into float32
# Exercise 1.4
def target_log_probs(log_probs, targets):
    """log_probs (..., C), targets (...) int64 -> log_probs[..., targets] of shape (...), differentiable."""
    onehot = F.one_hot(targets, log_probs.shape[-1]).float()
    return (onehot * log_probs).sum(dim=-1)
