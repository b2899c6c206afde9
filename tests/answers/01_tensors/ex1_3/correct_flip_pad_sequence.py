# correct: pad_sequence pads on the right; for the left side, flip each sequence, pad, and flip the rows back
# Exercise 1.3
from torch.nn.utils.rnn import pad_sequence


def pad_batch(seqs, pad_value=0):
    """Pad a list of 1-D tensors into (padded (B, T), lengths (B,) int64), keeping their dtype and device."""
    side = PAD_SIDE  # your variant's side of the padding: "right" or "left"
    lengths = torch.tensor([s.shape[0] for s in seqs], device=seqs[0].device)
    if side == "right":
        return pad_sequence(list(seqs), batch_first=True, padding_value=pad_value), lengths
    flipped = pad_sequence([s.flip(0) for s in seqs], batch_first=True, padding_value=pad_value)
    return flipped.flip(1), lengths
