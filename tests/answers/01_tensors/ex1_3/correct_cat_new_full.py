# correct: each row is the sequence followed by s.new_full(...) (new_* keeps the dtype and device of s), stacked
# Exercise 1.3
def pad_batch(seqs, pad_value=0):
    """Pad a list of 1-D tensors into (padded (B, T), lengths (B,) int64), keeping their dtype and device."""
    T = max(s.numel() for s in seqs)
    padded = torch.stack([torch.cat([s, s.new_full((T - s.numel(),), pad_value)]) for s in seqs])
    lengths = torch.tensor([s.numel() for s in seqs], device=seqs[0].device)
    return padded, lengths
