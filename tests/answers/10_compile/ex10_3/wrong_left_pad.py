# caught by the visible tests
# wrong: pads on the left
def pad_to_bucket(tokens, bucket, pad_id):
    """Exercise 10.3: right-pad dim 1 with pad_id up to the next multiple of `bucket`."""
    T = tokens.shape[1]
    return F.pad(tokens, (-(-T // bucket) * bucket - T, 0), value=pad_id)
