# correct: torch.full with explicit dtype and device, filled by slicing (left: the last len(s) columns)
# Exercise 1.3
def pad_batch(seqs, pad_value=0):
    """Pad a list of 1-D tensors into (padded (B, T), lengths (B,) int64), keeping their dtype and device."""
    side = PAD_SIDE  # your variant's side of the padding: "right" or "left"
    ref = seqs[0]
    T = max([s.shape[0] for s in seqs])
    padded = torch.full((len(seqs), T), pad_value, dtype=ref.dtype, device=ref.device)
    lengths = torch.zeros(len(seqs), dtype=torch.long, device=ref.device)
    for i, s in enumerate(seqs):
        if side == "right":
            padded[i, :s.shape[0]] = s
        else:
            padded[i, T - s.shape[0]:] = s
        lengths[i] = s.shape[0]
    return padded, lengths
