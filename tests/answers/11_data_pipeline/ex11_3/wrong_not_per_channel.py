# caught by the visible tests
# wrong: one mean and std over all channels, repeated per channel
# Exercise 11.3
def normalization_stats(dataset, train_indices):
    """Exercise 11.3: per-channel (mean, std) with correction=0, float32 (C,), over the training samples only."""
    x = torch.stack([dataset[int(i)][0] for i in train_indices]).double()
    mean = x.mean().expand(x.shape[1])
    std = x.std(correction=0).expand(x.shape[1])
    return mean.float(), std.float()
