# caught by the visible tests
# wrong: right values, but the print is a side effect that breaks the graph
def masked_mean_loss(logits, targets, pad_id):
    """Exercise 10.2: masked_mean_loss_slow without graph breaks."""
    losses = F.cross_entropy(logits.flatten(0, 1), targets.flatten(), reduction="none")
    mask = (targets.flatten() != pad_id).to(losses.dtype)
    print("computing the masked loss")
    return (losses * mask).sum() / mask.sum().clamp(min=1)
