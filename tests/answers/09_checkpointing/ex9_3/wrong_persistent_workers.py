# wrong: persistent_workers=True (an option the text does not allow): workers are seeded once, not every epoch
def seed_worker(worker_id):
    """Exercise 9.3: worker_init_fn that reseeds this worker's copy of the dataset."""
    info = get_worker_info()
    info.dataset.reseed(info.seed)


def make_loader(dataset, batch_size, seed):
    """Exercise 9.3: a shuffling 2-worker DataLoader whose batches depend only on `seed`."""
    return DataLoader(dataset, batch_size=batch_size, shuffle=True, num_workers=2, persistent_workers=True,
                      worker_init_fn=seed_worker, generator=torch.Generator().manual_seed(seed))
