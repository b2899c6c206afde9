# correct: torch.where on the per-token losses, both branches finite
def masked_mean_loss(logits, targets, pad_id):
    """Exercise 10.2: masked_mean_loss_slow without graph breaks."""
    losses = F.cross_entropy(logits.flatten(0, 1), targets.flatten(), reduction="none")
    real = targets.flatten() != pad_id
    return torch.where(real, losses, torch.zeros_like(losses)).sum() / real.sum().clamp(min=1)
