%%writefile sharding.py
# wrong: a seeded shuffling DataLoader without DistributedSampler, so every rank reads the whole dataset
import torch
from torch.utils.data import DataLoader


def epoch_samples(dataset, batch_size, epochs, seed):
    g = torch.Generator()
    g.manual_seed(seed)
    loader = DataLoader(dataset, batch_size=batch_size, shuffle=True, generator=g)
    return [torch.cat(list(loader)) for _ in range(epochs)]
