# caught by the visible tests
# wrong: rounds the length down, cutting tokens off
def pad_to_bucket(tokens, bucket, pad_id):
    """Exercise 10.3: right-pad dim 1 with pad_id up to the next multiple of `bucket`."""
    T = tokens.shape[1]
    return tokens[:, : max(T // bucket, 1) * bucket]
