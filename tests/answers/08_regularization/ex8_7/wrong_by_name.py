# wrong: decides on names: "emb" in the name, so a tied head.weight is decayed and an "embed_proj" Linear exempt
def decay_groups(model, weight_decay):
    """Exercise 8.7: no decay for ndim < 2 and for nn.Embedding weights; frozen parameters left out."""
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        if p.requires_grad:
            (no_decay if p.ndim < 2 or "emb" in name else decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]
