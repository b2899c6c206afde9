# correct: trainable parameters collected in a set (identity de-duplicates tied weights), then turned into lists
def param_groups(model, weight_decay):
    """Exercise 5.3: [{"params": decayed, "weight_decay": weight_decay}, {"params": rest, "weight_decay": 0.0}]."""
    trainable = set()
    for module in model.modules():
        for p in module.parameters(recurse=False):
            if p.requires_grad:
                trainable.add(p)
    return [{"params": list(p for p in trainable if p.dim() > 1), "weight_decay": weight_decay},
            {"params": list(p for p in trainable if p.dim() <= 1), "weight_decay": 0.0}]
