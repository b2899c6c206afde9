# wrong: lengths counted as the entries different from pad_value: a token equal to pad_value (id 0 padded with 0) is not counted
# Exercise 1.3
def pad_batch(seqs, pad_value=0):
    """Pad a list of 1-D tensors into (padded (B, T), lengths (B,) int64), keeping their dtype and device."""
    side = PAD_SIDE  # your variant's side of the padding: "right" or "left"
    B, T = len(seqs), max(len(s) for s in seqs)
    padded = seqs[0].new_full((B, T), pad_value)
    for b, s in enumerate(seqs):
        if len(s):
            if side == "right":
                padded[b, :len(s)] = s
            else:
                padded[b, T - len(s):] = s
    lengths = (padded != padded.new_full((), pad_value)).sum(dim=1)
    return padded, lengths
