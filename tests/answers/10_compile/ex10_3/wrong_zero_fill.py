# caught by the visible tests
# wrong: fills with 0 instead of pad_id
def pad_to_bucket(tokens, bucket, pad_id):
    """Exercise 10.3: right-pad dim 1 with pad_id up to the next multiple of `bucket`."""
    T = tokens.shape[1]
    return F.pad(tokens, (0, -(-T // bucket) * bucket - T))
