# caught by the visible tests
# wrong: the recipe for global RNGs only: reseeds NumPy's global RNG, which the dataset does not use
def seed_worker(worker_id):
    """Exercise 9.3: worker_init_fn that reseeds this worker's copy of the dataset."""
    worker_seed = torch.initial_seed() % 2**32
    np.random.seed(worker_seed)
    random.seed(worker_seed)


def make_loader(dataset, batch_size, seed):
    """Exercise 9.3: a shuffling 2-worker DataLoader whose batches depend only on `seed`."""
    return DataLoader(dataset, batch_size=batch_size, shuffle=True, num_workers=2, worker_init_fn=seed_worker,
                      generator=torch.Generator().manual_seed(seed))
