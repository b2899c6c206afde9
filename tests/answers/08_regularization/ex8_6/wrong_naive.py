# caught by the visible tests
# wrong: the original log(softmax): -inf where softmax underflows, NaN after 0 * -inf
def soft_cross_entropy(logits, target_probs):
    """Exercise 8.6: cross-entropy against probability targets, stable for any finite logits."""
    return -(target_probs * torch.log(torch.softmax(logits, dim=1))).sum(dim=1).mean()
