# correct (slow): masked_fill row by row, stacked into a new tensor
# Exercise 1.5
def mask_padding(scores, lengths):
    """A copy of scores (B, T) with -inf at the padded positions; the input is not modified."""
    side = PAD_SIDE  # your variant's side of the padding, as in Exercise 1.3: "right" or "left"
    rows = []
    for s, n in zip(scores, lengths):
        t = torch.arange(s.shape[0], device=s.device)
        rows.append(s.masked_fill(t >= n if side == "right" else t < s.shape[0] - n, float("-inf")))
    return torch.stack(rows) if rows else scores.clone()
