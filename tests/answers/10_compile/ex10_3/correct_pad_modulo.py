# correct: the missing length is (-T) % bucket, padded on the right of the last dimension
def pad_to_bucket(tokens, bucket, pad_id):
    """Exercise 10.3: right-pad dim 1 with pad_id up to the next multiple of `bucket`."""
    return F.pad(tokens, (0, (-tokens.shape[-1]) % bucket), mode="constant", value=pad_id)
