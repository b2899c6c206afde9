# correct: np.random.default_rng([seed, epoch, i]) (NumPy mixes the list into one seed), noise cast to the images' dtype
# Exercise 11.5
class SeededNoise(Dataset):
    """Exercise 11.5: images[i] + sigma * z, with z from a generator seeded by (seed, epoch, i)."""

    def __init__(self, images, labels, sigma, seed):
        self.images, self.labels = images, labels
        self.sigma, self.seed, self.epoch = sigma, seed, 0

    def set_epoch(self, epoch):
        self.epoch = int(epoch)

    def __len__(self):
        return self.images.shape[0]

    def __getitem__(self, i):
        rng = np.random.default_rng([self.seed, self.epoch, int(i)])
        z = torch.from_numpy(rng.standard_normal(tuple(self.images[i].shape))).to(self.images.dtype)
        return self.images[i] + self.sigma * z, self.labels[i]
