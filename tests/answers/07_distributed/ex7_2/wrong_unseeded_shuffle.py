# caught by the visible tests
# wrong: shards a fresh torch.randperm from the global generator: disjoint, but not reproducible from seed
# (the same as a %%writefile sharding.py cell: a cell magic cannot follow this first line)
get_ipython().run_cell_magic("writefile", "sharding.py", r'''# wrong: shards a fresh torch.randperm from the global generator: disjoint, but not reproducible from seed
import torch
import torch.distributed as dist


def epoch_samples(dataset, batch_size, epochs, seed):
    rank, world = dist.get_rank(), dist.get_world_size()
    seen = []
    for epoch in range(epochs):
        order = torch.randperm(len(dataset))
        seen.append(dataset[order[rank::world]])
    return seen
''')
