# caught by the visible tests
# wrong: torch.arange(T) without device= is on the CPU: it works on a CPU-only machine and fails with GPU scores
# Exercise 1.5
def mask_padding(scores, lengths):
    """A copy of scores (B, T) with -inf wherever t >= lengths[b]; the input is not modified."""
    mask = torch.arange(scores.shape[1])[None, :] >= lengths[:, None]
    return scores.masked_fill(mask, float("-inf"))
