# caught by the visible tests
# wrong: gathers from log_probs.detach(): right values, but no gradient reaches log_probs
# Exercise 1.4
def target_log_probs(log_probs, targets):
    """log_probs (..., C), targets (...) int64 -> log_probs[..., targets] of shape (...), differentiable."""
    return log_probs.detach().gather(-1, targets.unsqueeze(-1)).squeeze(-1)
