%%writefile sharding.py
# wrong: a different seed on each rank, so the ranks' shards overlap and miss items
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def epoch_samples(dataset, batch_size, epochs, seed):
    sampler = DistributedSampler(dataset, shuffle=True, seed=seed + dist.get_rank())
    loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler)
    seen = []
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        seen.append(torch.cat([b for b in loader]))
    return seen
