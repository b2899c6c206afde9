# wrong: noise drawn in float32, then converted to the dtype of the images (float64 images get float32 noise)
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
        g = torch.Generator().manual_seed(((self.seed * 1_000_003 + self.epoch) * 1_000_003 + int(i)) % 2**63)
        x = self.images[i]
        z = torch.randn(x.shape, generator=g).to(x.dtype)
        return x + self.sigma * z, self.labels[i]
