# caught by the visible tests
# wrong: reads only the loss curves, never the gradient norms
def diagnose(history):
    """Exercise 8.5: name the failure in a training history and its fix, from the FAILURES vocabulary."""
    train = torch.tensor(history["train_loss"], dtype=torch.float64)
    val = torch.tensor(history["val_loss"], dtype=torch.float64)
    if not (torch.isfinite(train).all() and torch.isfinite(val).all()):
        failure = "nan_loss"
    else:
        start, end = train[:3].mean(), train[-3:].mean()
        if end > start:
            failure = "lr_too_high"
        elif val[-3:].mean() > 1.5 * val.min():
            failure = "overfitting"
        elif end > 0.68 * start:
            failure = "lr_too_low"
        elif end > 0.2 * start:
            failure = "underfitting"
        else:
            failure = "healthy"
    return failure, FAILURES[failure]
