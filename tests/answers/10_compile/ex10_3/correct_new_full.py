# correct: allocates the padded tensor filled with pad_id and copies the tokens in
def pad_to_bucket(tokens, bucket, pad_id):
    """Exercise 10.3: right-pad dim 1 with pad_id up to the next multiple of `bucket`."""
    T = tokens.size(1)
    padded_len = T + (-T) % bucket
    out = tokens.new_full((tokens.size(0), padded_len), pad_id)
    out[:, :T] = tokens
    return out
