# caught by the visible tests
# wrong: the rule of notebook 05 (ndim >= 2 decays): the embedding weight is decayed
def decay_groups(model, weight_decay):
    """Exercise 8.7: no decay for ndim < 2 and for nn.Embedding weights; frozen parameters left out."""
    decay, no_decay = [], []
    for p in model.parameters():
        if p.requires_grad:
            (decay if p.ndim >= 2 else no_decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]
