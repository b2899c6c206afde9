# correct: F.pad each sequence to the longest length, on the left or the right, then stack
# Exercise 1.3
def pad_batch(seqs, pad_value=0):
    """Pad a list of 1-D tensors into (padded (B, T), lengths (B,) int64), keeping their dtype and device."""
    side = PAD_SIDE  # your variant's side of the padding: "right" or "left"
    T = max(len(s) for s in seqs)
    widths = [(0, T - len(s)) if side == "right" else (T - len(s), 0) for s in seqs]
    padded = torch.stack([F.pad(s, w, value=pad_value) for s, w in zip(seqs, widths)])
    lengths = torch.as_tensor([len(s) for s in seqs], dtype=torch.int64).to(seqs[0].device)
    return padded, lengths
