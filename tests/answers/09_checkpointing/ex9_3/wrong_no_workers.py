# caught by the visible tests
# wrong: num_workers=0: worker_init_fn never runs and the dataset's RNG in this process keeps advancing
def seed_worker(worker_id):
    """Exercise 9.3: worker_init_fn that reseeds this worker's copy of the dataset."""
    get_worker_info().dataset.reseed(get_worker_info().seed)


def make_loader(dataset, batch_size, seed):
    """Exercise 9.3: a shuffling 2-worker DataLoader whose batches depend only on `seed`."""
    return DataLoader(dataset, batch_size=batch_size, shuffle=True, num_workers=0, worker_init_fn=seed_worker,
                      generator=torch.Generator().manual_seed(seed))
