# correct: builds the padding block with torch.full and concatenates it
import math


def pad_to_bucket(tokens, bucket, pad_id):
    """Exercise 10.3: right-pad dim 1 with pad_id up to the next multiple of `bucket`."""
    B, T = tokens.shape
    extra = math.ceil(T / bucket) * bucket - T
    fill = torch.full((B, extra), pad_id, dtype=tokens.dtype, device=tokens.device)
    return torch.cat([tokens, fill], dim=1)
