# wrong: returns the input itself when there is nothing to mask, so the result is not a new tensor
# Exercise 1.5
def mask_padding(scores, lengths):
    """A copy of scores (B, T) with -inf wherever t >= lengths[b]; the input is not modified."""
    mask = torch.arange(scores.shape[1], device=scores.device)[None, :] >= lengths[:, None]
    if scores.shape[0] > 0 and not mask.any():
        return scores
    return scores.masked_fill(mask, float("-inf"))
