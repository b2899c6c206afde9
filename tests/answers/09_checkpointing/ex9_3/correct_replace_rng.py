# correct: replaces the worker's generator object directly; also seeds NumPy's and Python's global RNGs (harmless)
def seed_worker(worker_id):
    """Exercise 9.3: worker_init_fn that reseeds this worker's copy of the dataset."""
    info = get_worker_info()
    info.dataset.rng = np.random.default_rng(info.seed)
    np.random.seed(info.seed % 2**32)
    random.seed(info.seed)


def make_loader(dataset, batch_size, seed):
    """Exercise 9.3: a shuffling 2-worker DataLoader whose batches depend only on `seed`."""
    g = torch.Generator()
    g.manual_seed(seed)
    return DataLoader(dataset=dataset, batch_size=batch_size, shuffle=True, num_workers=2,
                      worker_init_fn=seed_worker, generator=g)
