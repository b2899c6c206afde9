# caught by the visible tests
# wrong: only biases exempted by name; LayerNorm/BatchNorm/GroupNorm weights are decayed
def param_groups(model, weight_decay):
    """Exercise 5.3: [{"params": decayed, "weight_decay": weight_decay}, {"params": rest, "weight_decay": 0.0}]."""
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        if p.requires_grad:
            (no_decay if name.endswith("bias") else decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]
