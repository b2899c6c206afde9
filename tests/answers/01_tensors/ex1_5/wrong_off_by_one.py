# wrong: masks t > lengths[b] instead of t >= lengths[b]
# Exercise 1.5
def mask_padding(scores, lengths):
    """A copy of scores (B, T) with -inf wherever t >= lengths[b]; the input is not modified."""
    mask = torch.arange(scores.shape[1], device=scores.device)[None, :] > lengths[:, None]
    return scores.masked_fill(mask, float("-inf"))
