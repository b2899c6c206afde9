# caught by the visible tests
# wrong: shuffle=False in the sampler, so the order never changes
# (the same as a %%writefile sharding.py cell: a cell magic cannot follow this first line)
get_ipython().run_cell_magic("writefile", "sharding.py", r'''# wrong: shuffle=False in the sampler, so the order never changes
import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def epoch_samples(dataset, batch_size, epochs, seed):
    sampler = DistributedSampler(dataset, shuffle=False, seed=seed)
    loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler)
    seen = []
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        seen.append(torch.cat([b for b in loader]))
    return seen
''')
