%%writefile sharding.py
# wrong: never calls set_epoch, so every epoch repeats the same order
import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def epoch_samples(dataset, batch_size, epochs, seed):
    sampler = DistributedSampler(dataset, shuffle=True, seed=seed)
    loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler)
    return [torch.cat(list(loader)) for _ in range(epochs)]
