# wrong: hard-codes int64, so int32 ids (or float sequences) change dtype
# Exercise 1.3
def pad_batch(seqs, pad_value=0):
    """Pad a list of 1-D tensors into (padded (B, T), lengths (B,) int64), keeping their dtype and device."""
    T = max(len(s) for s in seqs)
    padded = torch.full((len(seqs), T), pad_value, dtype=torch.long, device=seqs[0].device)
    for i, s in enumerate(seqs):
        padded[i, :len(s)] = s
    return padded, torch.tensor([len(s) for s in seqs], device=seqs[0].device)
