# correct: the right-side mask t >= lengths[b]; for "left" the same mask flipped along t (T-1-t >= lengths[b])
# Exercise 1.5
def mask_padding(scores, lengths):
    """A copy of scores (B, T) with -inf at the padded positions; the input is not modified."""
    side = PAD_SIDE  # your variant's side of the padding, as in Exercise 1.3: "right" or "left"
    T = scores.size(1)
    right = torch.arange(T, device=lengths.device).unsqueeze(0) >= lengths.unsqueeze(1)
    mask = right if side == "right" else right.flip(1)
    return torch.where(mask, torch.full_like(scores, -float("inf")), scores)
