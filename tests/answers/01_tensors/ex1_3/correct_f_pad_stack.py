# correct: F.pad each sequence to the longest length, then stack
# Exercise 1.3
def pad_batch(seqs, pad_value=0):
    """Pad a list of 1-D tensors into (padded (B, T), lengths (B,) int64), keeping their dtype and device."""
    T = max(len(s) for s in seqs)
    padded = torch.stack([F.pad(s, (0, T - len(s)), value=pad_value) for s in seqs])
    lengths = torch.as_tensor([len(s) for s in seqs], dtype=torch.int64).to(seqs[0].device)
    return padded, lengths
