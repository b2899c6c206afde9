# caught by the visible tests
# wrong: calls every high plateau "learning rate too low" (underfitting never diagnosed)
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
        failure = "exploding_gradients"
    else:
        start, end = train[:3].mean(), train[-3:].mean()
        if end > start:
            failure = "lr_too_high"
        elif val[-3:].mean() > 1.5 * val.min():
            failure = "overfitting"
        elif end > 0.2 * start:
            failure = "lr_too_low"
        else:
            failure = "healthy"
    return failure, FAILURES[failure]
