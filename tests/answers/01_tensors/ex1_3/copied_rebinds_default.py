# copied_default.py with the default's value bound again at the top of the answer cell, so that a test
# that builds its inputs from PAD_SIDE builds them for the default: the hidden tests bind the student's
# own value again before they run, so it still fails
PAD_SIDE = "right"
# Exercise 1.3
def pad_batch(seqs, pad_value=0):
    """Pad a list of 1-D tensors into (padded (B, T), lengths (B,) int64), keeping their dtype and device."""
    side = PAD_SIDE  # your variant's side of the padding: "right" or "left"
    first = seqs[0]
    lengths = torch.tensor([len(s) for s in seqs], dtype=torch.int64, device=first.device)
    T = max(len(s) for s in seqs)
    padded = first.new_full((len(seqs), T), pad_value)
    for b, s in enumerate(seqs):
        padded[b, : len(s)] = s
    return padded, lengths
