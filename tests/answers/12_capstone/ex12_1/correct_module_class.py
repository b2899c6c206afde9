MAX_PARAMS = 20_000


class SmallCNN(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.c1 = nn.Conv2d(1, 8, 3, padding=1)
        self.b1 = nn.BatchNorm2d(8)
        self.c2 = nn.Conv2d(8, 16, 3, padding=1)
        self.b2 = nn.BatchNorm2d(16)
        self.c3 = nn.Conv2d(16, 32, 3, padding=1)
        self.b3 = nn.BatchNorm2d(32)
        self.fc = nn.Linear(32 * 4 * 4, num_classes)

    def forward(self, x):
        h = F.max_pool2d(F.relu(self.b1(self.c1(x))), 2)
        h = F.max_pool2d(F.relu(self.b2(self.c2(h))), 2)
        h = F.max_pool2d(F.relu(self.b3(self.c3(h))), 2)
        return self.fc(h.flatten(1))


def build_model(num_classes=10):
    return SmallCNN(num_classes)
