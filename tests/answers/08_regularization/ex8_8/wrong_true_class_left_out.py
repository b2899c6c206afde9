# caught by the visible tests
# wrong: eps/C on the wrong classes only: the true class gets 1-eps, the target sums to 1 - eps/C
def smoothed_cross_entropy(logits, target, eps, ignore_index=-100):
    """Exercise 8.8: F.cross_entropy(logits, target, label_smoothing=eps, ignore_index=ignore_index), by hand."""
    keep = target != ignore_index
    z, y = logits[keep], target[keep]
    C = logits.shape[1]
    hot = F.one_hot(y, C).to(logits.dtype)
    smooth = hot * (1 - eps) + (1 - hot) * eps / C
    return -(smooth * F.log_softmax(z, dim=1)).sum(dim=1).mean()
