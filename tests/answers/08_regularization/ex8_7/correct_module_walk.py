# correct: walks the modules once, de-duplicating by identity, after collecting the embedding weights
def decay_groups(model, weight_decay):
    """Exercise 8.7: no decay for ndim < 2 and for nn.Embedding weights; frozen parameters left out."""
    exempt = set()
    for module in model.modules():
        if isinstance(module, nn.Embedding):
            exempt.add(id(module.weight))
    seen, decay, no_decay = set(), [], []
    for module in model.modules():
        for p in module.parameters(recurse=False):
            if id(p) in seen or not p.requires_grad:
                continue
            seen.add(id(p))
            if p.dim() < 2 or id(p) in exempt:
                no_decay.append(p)
            else:
                decay.append(p)
    return [{"params": no_decay, "weight_decay": 0.0}, {"params": decay, "weight_decay": weight_decay}]
