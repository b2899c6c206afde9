# caught by the visible tests
# wrong: an `if` on a tensor value (a graph break), though the values are right
def masked_mean_loss(logits, targets, pad_id):
    """Exercise 10.2: masked_mean_loss_slow without graph breaks."""
    losses = F.cross_entropy(logits.flatten(0, 1), targets.flatten(), reduction="none")
    mask = (targets.flatten() != pad_id).to(losses.dtype)
    if mask.sum() == 0:
        return logits.sum() * 0.0
    return (losses * mask).sum() / mask.sum()
