# correct: tests identity against every embedding's weight with "is"
def decay_groups(model, weight_decay):
    """Exercise 8.7: no decay for ndim < 2 and for nn.Embedding weights; frozen parameters left out."""
    embeddings = [m for m in model.modules() if isinstance(m, nn.Embedding)]
    params = [p for _, p in model.named_parameters() if p.requires_grad]
    exempt = [p for p in params if p.ndim <= 1 or any(p is e.weight for e in embeddings)]
    decayed = [p for p in params if not any(p is q for q in exempt)]
    return [{"params": decayed, "weight_decay": float(weight_decay)}, {"params": exempt, "weight_decay": 0.0}]
