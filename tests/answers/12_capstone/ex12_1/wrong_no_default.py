# caught by the visible tests
MAX_PARAMS = 20_000


def build_model(num_classes):
    """Exercise 12.1: a small CNN, (N, 1, 32, 32) -> logits (N, num_classes)."""
    def block(c_in, c_out):
        return [nn.Conv2d(c_in, c_out, 3, padding=1), nn.BatchNorm2d(c_out), nn.ReLU(), nn.MaxPool2d(2)]

    return nn.Sequential(*block(1, 8), *block(8, 16), *block(16, 32), nn.Flatten(),
                         nn.Linear(32 * 4 * 4, num_classes))
