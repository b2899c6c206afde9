# caught by the visible tests
# wrong: eps on the wrong side: eps on the true class and (1-eps)/C spread over all
def smoothed_cross_entropy(logits, target, eps, ignore_index=-100):
    """Exercise 8.8: F.cross_entropy(logits, target, label_smoothing=eps, ignore_index=ignore_index), by hand."""
    keep = target != ignore_index
    z, y = logits[keep], target[keep]
    C = logits.shape[1]
    smooth = F.one_hot(y, C).to(logits.dtype) * eps + (1 - eps) / C
    return -(smooth * F.log_softmax(z, dim=1)).sum(dim=1).mean()
