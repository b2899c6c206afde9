# correct: add log(keep), which is 0 where kept and -inf where padded
# Exercise 1.5
def mask_padding(scores, lengths):
    """A copy of scores (B, T) with -inf at the padded positions; the input is not modified."""
    side = PAD_SIDE  # your variant's side of the padding, as in Exercise 1.3: "right" or "left"
    T = scores.shape[-1]
    t = torch.arange(T, device=scores.device)
    keep = t < lengths[:, None] if side == "right" else t >= T - lengths[:, None]
    return scores + keep.to(scores.dtype).log()
