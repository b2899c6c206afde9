# correct: torch.where with a broadcast mask and a 0-dim -inf tensor of the same dtype
# Exercise 1.5
def mask_padding(scores, lengths):
    """A copy of scores (B, T) with -inf at the padded positions; the input is not modified."""
    side = PAD_SIDE  # your variant's side of the padding, as in Exercise 1.3: "right" or "left"
    T = scores.shape[1]
    first_kept = torch.zeros_like(lengths) if side == "right" else T - lengths
    t = torch.arange(T, device=lengths.device).unsqueeze(0)
    keep = (t >= first_kept.unsqueeze(1)) & (t < (first_kept + lengths).unsqueeze(1))
    return torch.where(keep, scores, torch.tensor(float("-inf"), dtype=scores.dtype, device=scores.device))
