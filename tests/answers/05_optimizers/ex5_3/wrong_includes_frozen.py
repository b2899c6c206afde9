# caught by the visible tests
# wrong: frozen parameters (requires_grad=False) handed to the optimizer
def param_groups(model, weight_decay):
    """Exercise 5.3: [{"params": decayed, "weight_decay": weight_decay}, {"params": rest, "weight_decay": 0.0}]."""
    decay = [p for p in model.parameters() if p.ndim >= 2]
    no_decay = [p for p in model.parameters() if p.ndim < 2]
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]
