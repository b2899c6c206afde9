# caught by the visible tests
# wrong: walks modules without de-duplicating, so a tied weight is listed twice
def param_groups(model, weight_decay):
    """Exercise 5.3: [{"params": decayed, "weight_decay": weight_decay}, {"params": rest, "weight_decay": 0.0}]."""
    decay, no_decay = [], []
    for module in model.modules():
        for p in module.parameters(recurse=False):
            if p.requires_grad:
                (decay if p.ndim >= 2 else no_decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]
