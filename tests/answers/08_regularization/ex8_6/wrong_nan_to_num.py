# caught by the visible tests
# wrong: replaces the NaN after the fact
def soft_cross_entropy(logits, target_probs):
    """Exercise 8.6: cross-entropy against probability targets, stable for any finite logits."""
    per_class = target_probs * torch.log(torch.softmax(logits, dim=1))
    return -torch.nan_to_num(per_class, nan=0.0, neginf=-100.0).sum(dim=1).mean()
