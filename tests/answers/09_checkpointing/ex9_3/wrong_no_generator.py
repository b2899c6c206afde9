# caught by the visible tests
# wrong: worker_init_fn but no generator: the order and the base seed come from the unseeded global RNG
def seed_worker(worker_id):
    """Exercise 9.3: worker_init_fn that reseeds this worker's copy of the dataset."""
    info = get_worker_info()
    info.dataset.reseed(info.seed)


def make_loader(dataset, batch_size, seed):
    """Exercise 9.3: a shuffling 2-worker DataLoader whose batches depend only on `seed`."""
    return DataLoader(dataset, batch_size=batch_size, shuffle=True, num_workers=2, worker_init_fn=seed_worker)
