# correct: os.listdir + sorted, torchvision.io.decode_image in gray mode, class index via a dict
# Exercise 11.1
class PngFolder(Dataset):
    """Exercise 11.1: (float32 image (1, H, W) in [0, 1], int label) per file of root/<class>/<file>."""

    def __init__(self, root, transform=None):
        self.root = str(root)
        self.transform = transform
        self.classes = sorted(d for d in os.listdir(self.root) if os.path.isdir(os.path.join(self.root, d)))
        self.class_to_idx = {c: k for k, c in enumerate(self.classes)}
        self.files = []
        for c in self.classes:
            for f in sorted(os.listdir(os.path.join(self.root, c))):
                self.files.append((os.path.join(self.root, c, f), self.class_to_idx[c]))

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        path, label = self.files[i]
        img = torchvision.io.decode_image(path, mode=torchvision.io.ImageReadMode.GRAY)
        img = img.to(torch.float32) / 255.0
        return (img if self.transform is None else self.transform(img)), label
