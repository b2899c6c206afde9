# caught by the visible tests
# wrong: walks the modules without de-duplicating, so the tied weight is listed twice
def decay_groups(model, weight_decay):
    """Exercise 8.7: no decay for ndim < 2 and for nn.Embedding weights; frozen parameters left out."""
    decay, no_decay = [], []
    for module in model.modules():
        for p in module.parameters(recurse=False):
            if p.requires_grad:
                (no_decay if p.ndim < 2 or isinstance(module, nn.Embedding) else decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]
