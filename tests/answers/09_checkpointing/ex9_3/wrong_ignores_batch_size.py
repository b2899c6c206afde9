# wrong: a fixed batch size of 4 instead of the batch_size argument
def seed_worker(worker_id):
    """Exercise 9.3: worker_init_fn that reseeds this worker's copy of the dataset."""
    info = get_worker_info()
    info.dataset.reseed(info.seed)


def make_loader(dataset, batch_size, seed):
    """Exercise 9.3: a shuffling 2-worker DataLoader whose batches depend only on `seed`."""
    generator = torch.Generator()
    generator.manual_seed(seed)
    return DataLoader(dataset, batch_size=4, shuffle=True, num_workers=2,
                      worker_init_fn=seed_worker, generator=generator)
