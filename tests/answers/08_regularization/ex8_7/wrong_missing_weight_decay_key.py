# caught by the visible tests
# wrong: the exempt group states no weight_decay, so AdamW gives it its default 0.01
def decay_groups(model, weight_decay):
    """Exercise 8.7: no decay for ndim < 2 and for nn.Embedding weights; frozen parameters left out."""
    exempt = {id(m.weight) for m in model.modules() if isinstance(m, nn.Embedding)}
    decay, no_decay = [], []
    for p in model.parameters():
        if p.requires_grad:
            (no_decay if p.ndim < 2 or id(p) in exempt else decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay}]
