# correct: plain F.cross_entropy (no label_smoothing) for the true-class term, logsumexp for the uniform term
def smoothed_cross_entropy(logits, target, eps, ignore_index=-100):
    """Exercise 8.8: F.cross_entropy(logits, target, label_smoothing=eps, ignore_index=ignore_index), by hand."""
    keep = target != ignore_index
    n = keep.sum()
    # -mean_c log p_c = logsumexp(z) - mean_c z_c
    uniform = torch.logsumexp(logits, dim=1) - logits.mean(dim=1)
    uniform = torch.where(keep, uniform, torch.zeros_like(uniform)).sum() / n
    return (1 - eps) * F.cross_entropy(logits, target, ignore_index=ignore_index) + eps * uniform
