# correct: torch.nn.utils.rnn.pad_sequence with padding_side
# Exercise 1.3
def pad_batch(seqs, pad_value=0):
    """Pad a list of 1-D tensors into (padded (B, T), lengths (B,) int64), keeping their dtype and device."""
    side = PAD_SIDE  # your variant's side of the padding: "right" or "left"
    from torch.nn.utils.rnn import pad_sequence
    padded = pad_sequence(seqs, batch_first=True, padding_value=pad_value, padding_side=side)
    lengths = torch.tensor([s.numel() for s in seqs], device=seqs[0].device)
    return padded, lengths
