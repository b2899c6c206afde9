# correct: clone first, then write -inf in place into the copy
# Exercise 1.5
def mask_padding(scores, lengths):
    """A copy of scores (B, T) with -inf wherever t >= lengths[b]; the input is not modified."""
    out = scores.clone()
    pad = torch.arange(scores.shape[1], device=scores.device)[None, :] >= lengths[:, None]
    out[pad] = float("-inf")
    return out
