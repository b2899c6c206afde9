# caught by the visible tests
# wrong: masks the losses but divides by every position, padding included
def masked_mean_loss(logits, targets, pad_id):
    """Exercise 10.2: masked_mean_loss_slow without graph breaks."""
    losses = F.cross_entropy(logits.flatten(0, 1), targets.flatten(), reduction="none")
    return (losses * (targets.flatten() != pad_id)).mean()
