# caught by the visible tests
# wrong: ignore_index alone gives NaN (0/0) for an all-padding batch
def masked_mean_loss(logits, targets, pad_id):
    """Exercise 10.2: masked_mean_loss_slow without graph breaks."""
    return F.cross_entropy(logits.flatten(0, 1), targets.flatten(), ignore_index=pad_id)
