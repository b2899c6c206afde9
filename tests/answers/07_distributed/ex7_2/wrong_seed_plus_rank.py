# caught by the visible tests
# wrong: a different seed on each rank, so the ranks' shards overlap and miss items
# (the same as a %%writefile sharding.py cell: a cell magic cannot follow this first line)
get_ipython().run_cell_magic("writefile", "sharding.py", r'''# wrong: a different seed on each rank, so the ranks' shards overlap and miss items
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
''')
