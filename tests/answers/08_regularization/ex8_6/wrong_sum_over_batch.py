# caught by the visible tests
# wrong: sums over the batch instead of averaging
def soft_cross_entropy(logits, target_probs):
    """Exercise 8.6: cross-entropy against probability targets, stable for any finite logits."""
    return -(target_probs * torch.log_softmax(logits, dim=1)).sum()
