# caught by the visible tests
# wrong: the print comes before any tensor operation, so explain counts no break, yet the function still breaks
def masked_mean_loss(logits, targets, pad_id):
    """Exercise 10.2: masked_mean_loss_slow without graph breaks."""
    print("computing the masked loss")
    losses = F.cross_entropy(logits.flatten(0, 1), targets.flatten(), reduction="none")
    mask = (targets.flatten() != pad_id).to(losses.dtype)
    return (losses * mask).sum() / mask.sum().clamp(min=1)
