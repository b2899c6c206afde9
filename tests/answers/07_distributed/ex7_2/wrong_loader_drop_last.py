# caught by the visible tests
# wrong: drop_last=True in the DataLoader throws away each epoch's smaller last batch
# (the same as a %%writefile sharding.py cell: a cell magic cannot follow this first line)
get_ipython().run_cell_magic("writefile", "sharding.py", r'''# wrong: drop_last=True in the DataLoader throws away each epoch's smaller last batch
import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def epoch_samples(dataset, batch_size, epochs, seed):
    sampler = DistributedSampler(dataset, shuffle=True, seed=seed)
    loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler, drop_last=True)
    seen = []
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        seen.append(torch.cat(list(loader)))
    return seen
''')
