# caught by the visible tests
# wrong: boolean indexing has a data-dependent shape (a graph break), and the mean of nothing is NaN
def masked_mean_loss(logits, targets, pad_id):
    """Exercise 10.2: masked_mean_loss_slow without graph breaks."""
    losses = F.cross_entropy(logits.flatten(0, 1), targets.flatten(), reduction="none")
    return losses[targets.flatten() != pad_id].mean()
