# caught by the visible tests
# wrong: the F.pad tuple starts from the LAST dimension, so (0, 0, 0, k) pads the batch dimension
def pad_to_bucket(tokens, bucket, pad_id):
    """Exercise 10.3: right-pad dim 1 with pad_id up to the next multiple of `bucket`."""
    T = tokens.shape[1]
    return F.pad(tokens, (0, 0, 0, -(-T // bucket) * bucket - T), value=pad_id)
