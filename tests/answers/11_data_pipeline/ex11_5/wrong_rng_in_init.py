# caught by the visible tests
# wrong: one NumPy generator made in __init__: every worker gets a copy of it
# Exercise 11.5
class SeededNoise(Dataset):
    """Exercise 11.5: images[i] + sigma * z, with z from a generator seeded by (seed, epoch, i)."""

    def __init__(self, images, labels, sigma, seed):
        self.images, self.labels, self.sigma, self.seed = images, labels, sigma, seed
        self.epoch = 0
        self.rng = np.random.default_rng(seed)

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        x = self.images[i]
        z = torch.from_numpy(self.rng.standard_normal(tuple(x.shape))).to(x.dtype)
        return x + self.sigma * z, self.labels[i]
