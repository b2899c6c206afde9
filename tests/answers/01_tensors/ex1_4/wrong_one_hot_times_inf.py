# wrong: one-hot mask times log-probs: a log-probability of -inf (a class with probability 0) at another class gives 0 * -inf = nan
# Exercise 1.4
def target_log_probs(log_probs, targets):
    """log_probs (..., C), targets (...) int64 -> log_probs[..., targets] of shape (...), differentiable."""
    onehot = F.one_hot(targets, log_probs.shape[-1]).to(log_probs.dtype)
    return (onehot * log_probs).sum(dim=-1)
