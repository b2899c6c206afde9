%%writefile sharding.py
# correct: a new sampler every epoch with seed + epoch draws the same permutations as set_epoch(epoch)
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def epoch_samples(dataset, batch_size, epochs, seed):
    out = []
    for epoch in range(epochs):
        sampler = DistributedSampler(dataset, num_replicas=dist.get_world_size(), rank=dist.get_rank(),
                                     shuffle=True, seed=seed + epoch)
        batches = list(DataLoader(dataset, batch_size=batch_size, sampler=sampler))
        out.append(torch.cat(batches))
    return out
