# caught by the visible tests
# wrong: returns tokens itself when no padding is needed, so the result shares memory with the input
def pad_to_bucket(tokens, bucket, pad_id):
    """Exercise 10.3: right-pad dim 1 with pad_id up to the next multiple of `bucket`."""
    T = tokens.shape[1]
    if T % bucket == 0:
        return tokens
    return F.pad(tokens, (0, bucket - T % bucket), value=pad_id)
