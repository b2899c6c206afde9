# correct: cross_entropy's ignore_index, with the all-padding NaN (0/0) turned into 0
def masked_mean_loss(logits, targets, pad_id):
    """Exercise 10.2: masked_mean_loss_slow without graph breaks."""
    loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten(), ignore_index=pad_id)
    return torch.nan_to_num(loss, nan=0.0)
