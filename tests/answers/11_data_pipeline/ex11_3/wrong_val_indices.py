# wrong: the complement of train_indices (statistics of the held-out split)
# Exercise 11.3
def normalization_stats(dataset, train_indices):
    """Exercise 11.3: per-channel (mean, std) with correction=0, float32 (C,), over the training samples only."""
    keep = {int(i) for i in train_indices}
    x = torch.stack([dataset[i][0] for i in range(len(dataset)) if i not in keep]).double()
    return x.mean(dim=(0, 2, 3)).float(), x.std(dim=(0, 2, 3), correction=0).float()
