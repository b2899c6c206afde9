# wrong: passes label_smoothing to torch, through a name imported from torch.nn.functional
from torch.nn.functional import cross_entropy as _ce


def smoothed_cross_entropy(logits, target, eps, ignore_index=-100):
    """Exercise 8.8: F.cross_entropy(logits, target, label_smoothing=eps, ignore_index=ignore_index), by hand."""
    return _ce(logits, target, label_smoothing=eps, ignore_index=ignore_index)
