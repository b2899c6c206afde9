# caught by the visible tests
# wrong: lengths made with torch.tensor(list) without device=, so it is on the CPU whatever the sequences' device
# Exercise 1.3
def pad_batch(seqs, pad_value=0):
    """Pad a list of 1-D tensors into (padded (B, T), lengths (B,) int64), keeping their dtype and device."""
    T = max(len(s) for s in seqs)
    padded = seqs[0].new_full((len(seqs), T), pad_value)
    for i, s in enumerate(seqs):
        padded[i, :len(s)] = s
    return padded, torch.tensor([len(s) for s in seqs])
