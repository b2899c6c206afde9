# wrong: every image read in __init__, so a file changed afterwards is not seen: not lazy
# Exercise 11.1
class PngFolder(Dataset):
    """Exercise 11.1: (float32 image (1, H, W) in [0, 1], int label) per file of root/<class>/<file>."""

    def __init__(self, root, transform=None):
        root = Path(root)
        self.classes = sorted(p.name for p in root.iterdir() if p.is_dir())
        self.data = []
        for label, name in enumerate(self.classes):
            for path in sorted((root / name).iterdir()):
                image = torch.from_numpy(np.array(Image.open(path))).float().div(255).unsqueeze(0)
                self.data.append((image, label))
        self.transform = transform

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        image, label = self.data[i]
        return (self.transform(image) if self.transform else image), label
