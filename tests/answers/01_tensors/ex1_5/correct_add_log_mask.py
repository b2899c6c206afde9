# correct: add log(keep), which is 0 where kept and -inf where padded
# Exercise 1.5
def mask_padding(scores, lengths):
    """A copy of scores (B, T) with -inf wherever t >= lengths[b]; the input is not modified."""
    keep = (torch.arange(scores.shape[-1], device=scores.device) < lengths[:, None]).to(scores.dtype)
    return scores + keep.log()
