# caught by the visible tests
# wrong: masks the padding of the other side than PAD_SIDE names
# Exercise 1.5
def mask_padding(scores, lengths):
    """A copy of scores (B, T) with -inf at the padded positions; the input is not modified."""
    side = PAD_SIDE  # your variant's side of the padding, as in Exercise 1.3: "right" or "left"
    T = scores.shape[-1]
    positions = torch.arange(T, device=scores.device)
    if side == "left":
        mask = positions[None, :] >= lengths[:, None]
    else:
        mask = positions[None, :] < T - lengths[:, None]
    return scores.masked_fill(mask, float("-inf"))
