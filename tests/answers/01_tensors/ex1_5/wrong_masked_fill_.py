# wrong: masked_fill_ (with the underscore) modifies the input in place
# Exercise 1.5
def mask_padding(scores, lengths):
    """A copy of scores (B, T) with -inf wherever t >= lengths[b]; the input is not modified."""
    mask = torch.arange(scores.shape[1], device=scores.device)[None, :] >= lengths[:, None]
    return scores.masked_fill_(mask, float("-inf"))
