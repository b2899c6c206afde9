# a classmate's fixed part, handed the default spec (HIDDEN = 128):
# their numbers are written in, so it answers their spec and no other
def build_model(n_classes=4):
    """Exercise 13.2: an MLP on the flattened 8x8 image that outputs one logit per class."""
    return nn.Sequential(
        nn.Flatten(),
        nn.Linear(64, 128), nn.BatchNorm1d(128), nn.ReLU(), nn.Dropout(0.2),
        nn.Linear(128, n_classes),
    )


def make_optimizer(model, lr=1e-2, weight_decay=0.05):
    """Exercise 13.2: AdamW that decays the weight matrices and leaves biases and norm parameters alone."""
    decay = [p for p in model.parameters() if p.ndim >= 2]
    no_decay = [p for p in model.parameters() if p.ndim < 2]
    groups = [{"params": decay, "weight_decay": weight_decay},
              {"params": no_decay, "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=lr)
