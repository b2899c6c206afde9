# correct: channels first, flattened, torch.var_mean with correction=0, in float32
# Exercise 11.3
def normalization_stats(dataset, train_indices):
    """Exercise 11.3: per-channel (mean, std) with correction=0, float32 (C,), over the training samples only."""
    x = torch.stack([dataset[i][0] for i in train_indices])
    per_channel = x.transpose(0, 1).reshape(x.shape[1], -1)
    var, mean = torch.var_mean(per_channel, dim=1, correction=0)
    return mean.float(), var.sqrt().float()
