# wrong: the triple packed in bits, seed << 40 | epoch << 20 | i: a CPU generator keeps the low 32 bits, so every seed draws the same noise
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
        g = torch.Generator().manual_seed((self.seed << 40 | self.epoch << 20 | int(i)) % 2**64)
        x = self.images[i]
        z = torch.randn(x.shape, generator=g, dtype=x.dtype)
        return x + self.sigma * z, self.labels[i]
