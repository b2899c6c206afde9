# caught by the visible tests
# wrong: log(p + 1e-8) hides the NaN but caps the loss of confident mistakes at about 18.4
def soft_cross_entropy(logits, target_probs):
    """Exercise 8.6: cross-entropy against probability targets, stable for any finite logits."""
    return -(target_probs * torch.log(torch.softmax(logits, dim=1) + 1e-8)).sum(dim=1).mean()
