# correct: one pass in float32 over a DataLoader of the training subset: sums of x and x^2, var = E[x^2] - E[x]^2
# Exercise 11.3
def normalization_stats(dataset, train_indices):
    """Exercise 11.3: per-channel (mean, std) with correction=0, float32 (C,), over the training samples only."""
    loader = DataLoader(Subset(dataset, [int(i) for i in train_indices]), batch_size=4)
    s = sq = None
    count = 0
    for x, _ in loader:
        bs, bq = x.sum(dim=(0, 2, 3)), (x * x).sum(dim=(0, 2, 3))
        s, sq = (bs, bq) if s is None else (s + bs, sq + bq)
        count += x.shape[0] * x.shape[2] * x.shape[3]
    mean = s / count
    return mean.float(), (sq / count - mean**2).clamp(min=0).sqrt().float()
