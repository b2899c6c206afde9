# wrong: torch.where picks 0 for an all-padding batch, but the unselected 0/0 branch still sends NaN into the gradient
def masked_mean_loss(logits, targets, pad_id):
    """Exercise 10.2: masked_mean_loss_slow without graph breaks."""
    losses = F.cross_entropy(logits.flatten(0, 1), targets.flatten(), reduction="none")
    real = targets.flatten() != pad_id
    n = real.sum()
    return torch.where(n > 0, (losses * real).sum() / n, torch.zeros((), dtype=losses.dtype))
