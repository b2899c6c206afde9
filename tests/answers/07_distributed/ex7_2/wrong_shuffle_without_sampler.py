# caught by the visible tests
# wrong: a seeded shuffling DataLoader without DistributedSampler, so every rank reads the whole dataset
# (the same as a %%writefile sharding.py cell: a cell magic cannot follow this first line)
get_ipython().run_cell_magic("writefile", "sharding.py", r'''# wrong: a seeded shuffling DataLoader without DistributedSampler, so every rank reads the whole dataset
import torch
from torch.utils.data import DataLoader


def epoch_samples(dataset, batch_size, epochs, seed):
    g = torch.Generator()
    g.manual_seed(seed)
    loader = DataLoader(dataset, batch_size=batch_size, shuffle=True, generator=g)
    return [torch.cat(list(loader)) for _ in range(epochs)]
''')
