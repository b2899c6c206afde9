# wrong: 0 / 0 turned into 0 after the division: the value is right, but the gradient of an all-padding batch is NaN
def masked_mean_loss(logits, targets, pad_id):
    """Exercise 10.2: masked_mean_loss_slow without graph breaks."""
    losses = F.cross_entropy(logits.flatten(0, 1), targets.flatten(), reduction="none")
    mask = (targets.flatten() != pad_id).float()
    return torch.nan_to_num((losses * mask).sum() / mask.sum())
