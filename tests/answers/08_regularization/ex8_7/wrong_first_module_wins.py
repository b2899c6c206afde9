# wrong: a tied tensor is judged by the first module it is met in (an nn.Linear head registered first: decayed)
def decay_groups(model, weight_decay):
    """Exercise 8.7: no decay for ndim < 2 and for nn.Embedding weights; frozen parameters left out."""
    seen, decay, no_decay = set(), [], []
    for module in model.modules():
        for p in module.parameters(recurse=False):
            if id(p) in seen or not p.requires_grad:
                continue
            seen.add(id(p))
            (no_decay if p.ndim < 2 or isinstance(module, nn.Embedding) else decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]
