# copied_default.py with the default's value bound again at the top of the answer cell, so that a test
# that builds its inputs from PAD_SIDE builds them for the default: the hidden tests bind the student's
# own value again before they run, so it still fails
PAD_SIDE = "right"
# Exercise 1.5
def mask_padding(scores, lengths):
    """A copy of scores (B, T) with -inf at the padded positions; the input is not modified."""
    side = PAD_SIDE  # your variant's side of the padding, as in Exercise 1.3: "right" or "left"
    positions = torch.arange(scores.shape[-1], device=scores.device)
    mask = positions[None, :] >= lengths[:, None]
    return scores.masked_fill(mask, float("-inf"))
