# correct: two passes over the training samples (the mean first, then the squared deviations), float64 sums
# Exercise 11.3
def normalization_stats(dataset, train_indices):
    """Exercise 11.3: per-channel (mean, std) with correction=0, float32 (C,), over the training samples only."""
    indices = [int(i) for i in train_indices]
    total, count = 0.0, 0
    for i in indices:
        x = dataset[i][0].double()
        total = total + x.sum(dim=(1, 2))
        count += x.shape[1] * x.shape[2]
    mean = total / count
    sq = 0.0
    for i in indices:  # every training sample read a second time
        x = dataset[i][0].double()
        sq = sq + ((x - mean[:, None, None]) ** 2).sum(dim=(1, 2))
    return mean.float(), (sq / count).sqrt().float()
