# caught by the visible tests
# wrong: max(int(count), 1) turns a tensor into a Python number (a graph break)
def masked_mean_loss(logits, targets, pad_id):
    """Exercise 10.2: masked_mean_loss_slow without graph breaks."""
    losses = F.cross_entropy(logits.flatten(0, 1), targets.flatten(), reduction="none")
    mask = (targets.flatten() != pad_id).to(losses.dtype)
    return (losses * mask).sum() / max(int(mask.sum()), 1)
