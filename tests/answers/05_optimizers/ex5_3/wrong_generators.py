# caught by the visible tests
# wrong: "params" are generators, not lists (they are empty the second time anyone reads them)
def param_groups(model, weight_decay):
    """Exercise 5.3: [{"params": decayed, "weight_decay": weight_decay}, {"params": rest, "weight_decay": 0.0}]."""
    return [{"params": (p for p in model.parameters() if p.requires_grad and p.ndim >= 2), "weight_decay": weight_decay},
            {"params": (p for p in model.parameters() if p.requires_grad and p.ndim < 2), "weight_decay": 0.0}]
