# caught by the visible tests
# wrong: divides by all N rows, the ignored ones included
def smoothed_cross_entropy(logits, target, eps, ignore_index=-100):
    """Exercise 8.8: F.cross_entropy(logits, target, label_smoothing=eps, ignore_index=ignore_index), by hand."""
    logp = torch.log_softmax(logits, dim=1)
    keep = target != ignore_index
    safe = torch.where(keep, target, torch.zeros_like(target))
    per_row = (1 - eps) * -logp.gather(1, safe[:, None]).squeeze(1) + eps * -logp.mean(dim=1)
    return (per_row * keep).sum() / len(target)
