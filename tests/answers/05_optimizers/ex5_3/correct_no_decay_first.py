# correct: no-decay group first, built from parameters() with comprehensions
def param_groups(model, weight_decay):
    """Exercise 5.3: [{"params": decayed, "weight_decay": weight_decay}, {"params": rest, "weight_decay": 0.0}]."""
    trainable = [p for p in model.parameters() if p.requires_grad]
    return [{"weight_decay": 0.0, "params": [p for p in trainable if p.dim() < 2]},
            {"weight_decay": weight_decay, "params": [p for p in trainable if p.dim() >= 2]}]
