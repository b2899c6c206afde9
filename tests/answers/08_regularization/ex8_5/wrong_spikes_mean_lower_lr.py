# caught by the visible tests
# wrong: answers gradient spikes by lowering the learning rate instead of clipping
def diagnose(history):
    """Exercise 8.5: name the failure in a training history and its fix, from the FAILURES vocabulary."""
    train = torch.tensor(history["train_loss"], dtype=torch.float64)
    val = torch.tensor(history["val_loss"], dtype=torch.float64)
    grad = torch.tensor(history["grad_norm"], dtype=torch.float64)
    if not (torch.isfinite(train).all() and torch.isfinite(val).all()):
        failure = "nan_loss"
    elif (grad[-3:] == 0).all():
        failure = "fp16_no_scaler"
    elif grad.max() > 30 * grad.median():
        failure = "lr_too_high"
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
