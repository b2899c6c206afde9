# wrong: torch.full without device=: on a GPU the padding block is a CPU tensor and torch.cat fails
def pad_to_bucket(tokens, bucket, pad_id):
    """Exercise 10.3: right-pad dim 1 with pad_id up to the next multiple of `bucket`."""
    B, T = tokens.shape
    extra = -(-T // bucket) * bucket - T
    return torch.cat([tokens, torch.full((B, extra), pad_id, dtype=tokens.dtype)], dim=1)
