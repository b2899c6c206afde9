# caught by the visible tests
# wrong: clamps the probabilities; wrong value and zero gradient where the clamp is active
def soft_cross_entropy(logits, target_probs):
    """Exercise 8.6: cross-entropy against probability targets, stable for any finite logits."""
    p = torch.softmax(logits, dim=1).clamp(min=1e-12)
    return -(target_probs * p.log()).sum(dim=1).mean()
