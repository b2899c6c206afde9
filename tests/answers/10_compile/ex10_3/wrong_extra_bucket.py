# caught by the visible tests
# wrong: (T // bucket + 1) * bucket adds a whole bucket when T is already a multiple
import torch.nn.functional as F


def pad_to_bucket(tokens, bucket, pad_id):
    """Exercise 10.3: right-pad dim 1 with pad_id up to the next multiple of `bucket`."""
    T = tokens.shape[1]
    return F.pad(tokens, (0, (T // bucket + 1) * bucket - T), value=pad_id)
