# wrong: the mean of per-batch means and stds (the last batch is smaller, and batch stds are not pooled)
# Exercise 11.3
def normalization_stats(dataset, train_indices):
    """Exercise 11.3: per-channel (mean, std) with correction=0, float32 (C,), over the training samples only."""
    means, stds = [], []
    for x, _ in DataLoader(Subset(dataset, [int(i) for i in train_indices]), batch_size=4):
        means.append(x.mean(dim=(0, 2, 3)))
        stds.append(x.std(dim=(0, 2, 3), correction=0))
    return torch.stack(means).mean(dim=0), torch.stack(stds).mean(dim=0)
