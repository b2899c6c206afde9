# each training image is shifted once, when the set is made, not again on every read
def random_shift(image):
    """Shift an 8x8 image by -MAX_SHIFT to MAX_SHIFT pixels along each axis (your spec), wrapping around."""
    dy, dx = torch.randint(-MAX_SHIFT, MAX_SHIFT + 1, (2,)).tolist()
    return torch.roll(image, shifts=(dy, dx), dims=(-2, -1))


class ImageSet(Dataset):
    """Images normalised with the given statistics; with augment=True, shifted at random on every read."""

    def __init__(self, images, labels, mean, std, augment):
        self.images = (images - mean) / std
        if augment:
            self.images = torch.stack([random_shift(image) for image in self.images])
        self.labels = labels
        self.augment = augment

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        image = self.images[i]
        return image, self.labels[i]


def make_loaders(images, labels, n_val, batch_size=64, seed=0):
    """Exercise 13.1: (train_loader, val_loader) over a random split of the images."""
    order = torch.randperm(len(images), generator=torch.Generator().manual_seed(seed))
    train_idx, val_idx = order[n_val:], order[:n_val]
    mean, std = images[train_idx].mean(), images[train_idx].std()
    train_set = ImageSet(images[train_idx], labels[train_idx], mean, std, augment=True)
    val_set = ImageSet(images[val_idx], labels[val_idx], mean, std, augment=False)
    train_loader = DataLoader(train_set, batch_size=batch_size, shuffle=True,
                              generator=torch.Generator().manual_seed(seed + 1))
    val_loader = DataLoader(val_set, batch_size=256)
    return train_loader, val_loader
