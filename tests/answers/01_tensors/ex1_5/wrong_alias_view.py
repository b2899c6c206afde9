# wrong: writes into a view of the input, which is the same memory
# Exercise 1.5
def mask_padding(scores, lengths):
    """A copy of scores (B, T) with -inf wherever t >= lengths[b]; the input is not modified."""
    out = scores.view(scores.shape)
    mask = torch.arange(scores.shape[1], device=scores.device)[None, :] >= lengths[:, None]
    out[mask] = float("-inf")
    return out
