# caught by the visible tests
# wrong: the label as a NumPy integer (np.int64), not a Python int
# Exercise 11.1
class PngFolder(Dataset):
    """Exercise 11.1: (float32 image (1, H, W) in [0, 1], int label) per file of root/<class>/<file>."""

    def __init__(self, root, transform=None):
        root = Path(root)
        self.transform = transform
        self.classes = sorted(p.name for p in root.iterdir() if p.is_dir())
        self.samples = [(path, label) for label, name in enumerate(self.classes)
                        for path in sorted((root / name).iterdir(), key=lambda p: p.name)]

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, i):
        path, label = self.samples[i]
        with Image.open(path) as img:
            pixels = np.array(img.convert("L"))
        image = torch.from_numpy(pixels).float().div(255).unsqueeze(0)
        if self.transform is not None:
            image = self.transform(image)
        return image, np.int64(label)
