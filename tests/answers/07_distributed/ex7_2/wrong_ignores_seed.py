%%writefile sharding.py
# wrong: the sampler keeps its default seed 0, so `seed` changes nothing (still reproducible, still disjoint)
import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def epoch_samples(dataset, batch_size, epochs, seed):
    sampler = DistributedSampler(dataset, shuffle=True)
    loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler)
    seen = []
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        seen.append(torch.cat(list(loader)))
    return seen
