# correct: ignore_index with a summed loss, divided by the number of real positions clamped to at least 1
def masked_mean_loss(logits, targets, pad_id):
    """Exercise 10.2: masked_mean_loss_slow without graph breaks."""
    total = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1),
                            ignore_index=pad_id, reduction="sum")
    return total / (targets != pad_id).sum().clamp(min=1)
