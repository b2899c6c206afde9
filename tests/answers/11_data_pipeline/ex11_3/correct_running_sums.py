# correct: a DataLoader over a Subset, running float64 sums of x and x**2 per channel
# Exercise 11.3
def normalization_stats(dataset, train_indices):
    """Exercise 11.3: per-channel (mean, std) with correction=0, float32 (C,), over the training samples only."""
    loader = DataLoader(Subset(dataset, [int(i) for i in train_indices]), batch_size=4)
    total = total_sq = 0.0
    count = 0
    for x, _ in loader:
        x = x.double()
        total = total + x.sum(dim=(0, 2, 3))
        total_sq = total_sq + (x ** 2).sum(dim=(0, 2, 3))
        count += x.shape[0] * x.shape[2] * x.shape[3]
    mean = total / count
    std = (total_sq / count - mean ** 2).clamp_min(0).sqrt()
    return mean.to(torch.float32), std.to(torch.float32)
