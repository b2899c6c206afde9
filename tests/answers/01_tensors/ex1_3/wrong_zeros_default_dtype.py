# wrong: torch.zeros((B, T)) is float32 whatever the sequences are
# Exercise 1.3
def pad_batch(seqs, pad_value=0):
    """Pad a list of 1-D tensors into (padded (B, T), lengths (B,) int64), keeping their dtype and device."""
    T = max(len(s) for s in seqs)
    padded = torch.zeros(len(seqs), T) + pad_value
    for i, s in enumerate(seqs):
        padded[i, :len(s)] = s
    return padded, torch.tensor([len(s) for s in seqs])
