# correct: the negative log-likelihood by hand (log_softmax, gather); the count floored with a 0-dim CPU scalar,
# which CUDA accepts beside a GPU tensor in torch.maximum
def masked_mean_loss(logits, targets, pad_id):
    """Exercise 10.2: masked_mean_loss_slow without graph breaks."""
    log_probs = logits.log_softmax(dim=-1)
    nll = -log_probs.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    real = (targets != pad_id).float()
    return (nll * real).sum() / torch.maximum(real.sum(), torch.tensor(1.0))
