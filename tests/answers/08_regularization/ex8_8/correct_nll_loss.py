# correct: (1-eps) * nll_loss (which knows ignore_index) + eps * the masked mean of -mean_c log p
def smoothed_cross_entropy(logits, target, eps, ignore_index=-100):
    """Exercise 8.8: F.cross_entropy(logits, target, label_smoothing=eps, ignore_index=ignore_index), by hand."""
    logp = logits.log_softmax(dim=-1)
    keep = (target != ignore_index).to(logits.dtype)
    uniform = (-logp.mean(dim=-1) * keep).sum() / keep.sum()
    return (1 - eps) * F.nll_loss(logp, target, ignore_index=ignore_index) + eps * uniform
