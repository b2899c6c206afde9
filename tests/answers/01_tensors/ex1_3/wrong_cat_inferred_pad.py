# caught by the visible tests
# wrong: concatenates a torch.full tail whose dtype is inferred from pad_value; torch.cat then promotes
# (int64 ids with pad_value=-1.0 become float32, int32 ids with an int pad_value become int64)
# Exercise 1.3
def pad_batch(seqs, pad_value=0):
    """Pad a list of 1-D tensors into (padded (B, T), lengths (B,) int64), keeping their dtype and device."""
    T = max(len(s) for s in seqs)
    rows = [torch.cat([s, torch.full((T - len(s),), pad_value, device=s.device)]) for s in seqs]
    lengths = torch.tensor([len(s) for s in seqs], dtype=torch.int64, device=seqs[0].device)
    return torch.stack(rows), lengths
