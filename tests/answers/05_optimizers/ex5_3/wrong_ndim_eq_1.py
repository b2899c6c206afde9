# wrong: exempts exactly the 1-dimensional parameters, so a 0-dimensional scalar is decayed
def param_groups(model, weight_decay):
    """Exercise 5.3: [{"params": decayed, "weight_decay": weight_decay}, {"params": rest, "weight_decay": 0.0}]."""
    trainable = [p for p in model.parameters() if p.requires_grad]
    return [{"params": [p for p in trainable if p.ndim != 1], "weight_decay": weight_decay},
            {"params": [p for p in trainable if p.ndim == 1], "weight_decay": 0.0}]
