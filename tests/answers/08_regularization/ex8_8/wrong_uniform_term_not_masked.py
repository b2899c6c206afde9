# caught by the visible tests
# wrong: the ignored rows are left out of the true-class term only, not of the uniform term
def smoothed_cross_entropy(logits, target, eps, ignore_index=-100):
    """Exercise 8.8: F.cross_entropy(logits, target, label_smoothing=eps, ignore_index=ignore_index), by hand."""
    logp = torch.log_softmax(logits, dim=1)
    keep = target != ignore_index
    nll = F.nll_loss(logp, target, ignore_index=ignore_index)
    return (1 - eps) * nll + eps * (-logp.mean(dim=1)).mean()
