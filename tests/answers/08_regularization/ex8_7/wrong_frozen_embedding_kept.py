# wrong: adds every embedding weight to the exempt group without checking requires_grad
def decay_groups(model, weight_decay):
    """Exercise 8.7: no decay for ndim < 2 and for nn.Embedding weights; frozen parameters left out."""
    embedding_weights = [m.weight for m in model.modules() if isinstance(m, nn.Embedding)]
    ids = {id(w) for w in embedding_weights}
    decay, no_decay = [], list(embedding_weights)
    for p in model.parameters():
        if p.requires_grad and id(p) not in ids:
            (decay if p.ndim >= 2 else no_decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]
