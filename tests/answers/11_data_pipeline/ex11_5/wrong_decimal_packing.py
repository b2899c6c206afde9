# wrong: the triple packed in decimal digits, seed * 1000 + epoch * 100 + i: (epoch 1, sample 0) repeats (epoch 0, sample 100)
# Exercise 11.5
class SeededNoise(Dataset):
    """Exercise 11.5: images[i] + sigma * z, with z from a generator seeded by (seed, epoch, i)."""

    def __init__(self, images, labels, sigma, seed):
        self.images, self.labels, self.sigma, self.seed = images, labels, sigma, seed
        self.epoch = 0

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(self.seed * 1000 + self.epoch * 100 + int(i))
        x = self.images[i]
        z = torch.randn(x.shape, generator=g, dtype=x.dtype)
        return x + self.sigma * z, self.labels[i]
