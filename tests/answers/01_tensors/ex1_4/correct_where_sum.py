# correct: a boolean one-hot mask selects with torch.where (0 elsewhere, never 0 * -inf), then a sum over the classes
# Exercise 1.4
def target_log_probs(log_probs, targets):
    """log_probs (..., C), targets (...) int64 -> log_probs[..., targets] of shape (...), differentiable."""
    classes = torch.arange(log_probs.shape[-1], device=log_probs.device)
    picked = torch.where(classes == targets.unsqueeze(-1), log_probs, torch.zeros((), dtype=log_probs.dtype,
                                                                                   device=log_probs.device))
    return picked.sum(dim=-1)
