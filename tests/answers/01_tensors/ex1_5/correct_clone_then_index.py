# correct: clone first, then write -inf in place into the copy
# Exercise 1.5
def mask_padding(scores, lengths):
    """A copy of scores (B, T) with -inf at the padded positions; the input is not modified."""
    side = PAD_SIDE  # your variant's side of the padding, as in Exercise 1.3: "right" or "left"
    out = scores.clone()
    t = torch.arange(scores.shape[1], device=scores.device)[None, :]
    if side == "left":
        t = t.flip(-1)                 # distance from the right end: the left padding becomes t' >= length
    pad = t >= lengths[:, None]
    out[pad] = float("-inf")
    return out
