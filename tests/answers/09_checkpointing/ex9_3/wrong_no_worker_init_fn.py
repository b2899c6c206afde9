# caught by the visible tests
# wrong: a seeded generator but no worker_init_fn: both workers copy the same dataset RNG
def seed_worker(worker_id):
    """Exercise 9.3: worker_init_fn that reseeds this worker's copy of the dataset."""
    pass


def make_loader(dataset, batch_size, seed):
    """Exercise 9.3: a shuffling 2-worker DataLoader whose batches depend only on `seed`."""
    return DataLoader(dataset, batch_size=batch_size, shuffle=True, num_workers=2,
                      generator=torch.Generator().manual_seed(seed))
