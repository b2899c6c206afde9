# correct: pathlib glob per class, PIL + v2.ToImage/ToDtype(scale=True), label stored as int
# Exercise 11.1
class PngFolder(Dataset):
    """Exercise 11.1: (float32 image (1, H, W) in [0, 1], int label) per file of root/<class>/<file>."""

    def __init__(self, root, transform=None):
        root = Path(root)
        self.classes = [p.name for p in sorted(root.iterdir()) if p.is_dir()]
        self.items = []
        for k, name in enumerate(self.classes):
            self.items += [(f, k) for f in sorted((root / name).glob("*"), key=lambda f: f.name)]
        self.transform = transform
        self._to_tensor = v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32, scale=True)])

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        f, k = self.items[i]
        img = Image.open(f)
        x = self._to_tensor(img).as_subclass(torch.Tensor)
        img.close()
        if self.transform:
            x = self.transform(x)
        return x, int(k)
