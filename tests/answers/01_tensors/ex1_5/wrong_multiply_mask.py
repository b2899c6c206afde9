# wrong: multiplies by the mask, which gives 0 instead of -inf
# Exercise 1.5
def mask_padding(scores, lengths):
    """A copy of scores (B, T) with -inf wherever t >= lengths[b]; the input is not modified."""
    keep = torch.arange(scores.shape[1], device=scores.device)[None, :] < lengths[:, None]
    return scores * keep
