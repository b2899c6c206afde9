# correct: delegates to torch.nn.functional.dropout (same behaviour)
def dropout(x, p, training):
    """Exercise 8.1: inverted dropout; identity when training is False."""
    return F.dropout(x, p=p, training=training)
