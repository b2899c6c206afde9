# wrong: the padding block is float, so torch.cat promotes the result to float32 instead of int64
def pad_to_bucket(tokens, bucket, pad_id):
    """Exercise 10.3: right-pad dim 1 with pad_id up to the next multiple of `bucket`."""
    length = tokens.shape[1]
    extra = -(-length // bucket) * bucket - length
    fill = torch.full((tokens.shape[0], extra), float(pad_id), device=tokens.device)
    return torch.cat([tokens, fill], dim=1)
