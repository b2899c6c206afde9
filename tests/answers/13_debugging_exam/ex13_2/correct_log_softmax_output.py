def build_model(n_classes=4):
    """Exercise 13.2: an MLP on the flattened 8x8 image that outputs one logit per class."""
    return nn.Sequential(
        nn.Flatten(),
        nn.Linear(64, HIDDEN), nn.BatchNorm1d(HIDDEN), nn.ReLU(), nn.Dropout(0.2),
        nn.Linear(HIDDEN, n_classes), nn.LogSoftmax(dim=1),
    )


def make_optimizer(model, lr=1e-2, weight_decay=0.05):
    """Exercise 13.2: AdamW that decays the weight matrices and leaves biases and norm parameters alone."""
    decay = [p for p in model.parameters() if p.ndim >= 2]
    no_decay = [p for p in model.parameters() if p.ndim < 2]
    groups = [{"params": decay, "weight_decay": weight_decay},
              {"params": no_decay, "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=lr)
