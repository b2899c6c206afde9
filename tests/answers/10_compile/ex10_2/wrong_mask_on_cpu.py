# wrong: the mask starts as torch.ones(n) without device=: on a GPU it is a CPU tensor next to CUDA logits
def masked_mean_loss(logits, targets, pad_id):
    """Exercise 10.2: masked_mean_loss_slow without graph breaks."""
    losses = F.cross_entropy(logits.flatten(0, 1), targets.flatten(), reduction="none")
    mask = torch.ones(targets.numel()) * (targets.flatten() != pad_id)
    return (losses * mask).sum() / mask.sum().clamp(min=1)
