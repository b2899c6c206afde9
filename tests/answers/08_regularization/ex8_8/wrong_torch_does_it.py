# wrong: passes label_smoothing to torch instead of writing it
def smoothed_cross_entropy(logits, target, eps, ignore_index=-100):
    """Exercise 8.8: F.cross_entropy(logits, target, label_smoothing=eps, ignore_index=ignore_index), by hand."""
    return F.cross_entropy(logits, target, label_smoothing=eps, ignore_index=ignore_index)
