# correct: each row is the sequence and a s.new_full(...) fill (new_* keeps the dtype and device of s), stacked
# Exercise 1.3
def pad_batch(seqs, pad_value=0):
    """Pad a list of 1-D tensors into (padded (B, T), lengths (B,) int64), keeping their dtype and device."""
    side = PAD_SIDE  # your variant's side of the padding: "right" or "left"
    T = max(s.numel() for s in seqs)
    rows = []
    for s in seqs:
        fill = s.new_full((T - s.numel(),), pad_value)
        rows.append(torch.cat([s, fill] if side == "right" else [fill, s]))
    lengths = torch.tensor([s.numel() for s in seqs], device=seqs[0].device)
    return torch.stack(rows), lengths
