# variant: {"PAD_SIDE": "left"}
# wrong: with left padding, masks the first lengths[b] positions instead of the first T - lengths[b]
# Exercise 1.5
def mask_padding(scores, lengths):
    """A copy of scores (B, T) with -inf at the padded positions; the input is not modified."""
    side = PAD_SIDE  # your variant's side of the padding, as in Exercise 1.3: "right" or "left"
    positions = torch.arange(scores.shape[-1], device=scores.device)
    if side == "right":
        mask = positions[None, :] >= lengths[:, None]
    else:
        mask = positions[None, :] < lengths[:, None]
    return scores.masked_fill(mask, float("-inf"))
