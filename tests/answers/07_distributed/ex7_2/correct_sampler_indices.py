%%writefile sharding.py
# correct: iterates the sampler's indices directly and indexes the dataset (no DataLoader), set_epoch each epoch
import torch
from torch.utils.data.distributed import DistributedSampler


def epoch_samples(dataset, batch_size, epochs, seed):
    sampler = DistributedSampler(dataset, seed=seed)
    result = []
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        result.append(torch.stack([dataset[i] for i in sampler]))
    return result
