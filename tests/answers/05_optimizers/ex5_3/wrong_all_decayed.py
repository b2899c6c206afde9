# caught by the visible tests
# wrong: a single group, everything decayed
def param_groups(model, weight_decay):
    """Exercise 5.3: [{"params": decayed, "weight_decay": weight_decay}, {"params": rest, "weight_decay": 0.0}]."""
    return [{"params": [p for p in model.parameters() if p.requires_grad], "weight_decay": weight_decay}]
