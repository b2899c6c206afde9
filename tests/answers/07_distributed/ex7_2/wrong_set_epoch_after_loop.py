# caught by the visible tests
# wrong: calls set_epoch after iterating, so epoch 1 replays epoch 0's order
# (the same as a %%writefile sharding.py cell: a cell magic cannot follow this first line)
get_ipython().run_cell_magic("writefile", "sharding.py", r'''# wrong: calls set_epoch after iterating, so epoch 1 replays epoch 0's order
import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def epoch_samples(dataset, batch_size, epochs, seed):
    sampler = DistributedSampler(dataset, shuffle=True, seed=seed)
    loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler)
    seen = []
    for epoch in range(epochs):
        seen.append(torch.cat([b for b in loader]))
        sampler.set_epoch(epoch)
    return seen
''')
