# caught by the visible tests
# wrong: sorts history["grad_norm"] in place to find its median, modifying the caller's history
def diagnose(history):
    """Exercise 8.5: name the failure in a training history and its fix, from the FAILURES vocabulary."""
    tr, va, gn = history["train_loss"], history["val_loss"], history["grad_norm"]
    if any(v != v for v in tr + va):
        failure = "nan_loss"
    elif gn[-1] == 0 and gn[-2] == 0:
        failure = "fp16_no_scaler"
    else:
        gn.sort()
        if gn[-1] > 30 * gn[len(gn) // 2]:
            failure = "exploding_gradients"
        else:
            start, end = sum(tr[:3]) / 3, sum(tr[-3:]) / 3
            if end > start:
                failure = "lr_too_high"
            elif sum(va[-3:]) / 3 > 1.5 * min(va):
                failure = "overfitting"
            elif end > 0.68 * start:
                failure = "lr_too_low"
            elif end > 0.2 * start:
                failure = "underfitting"
            else:
                failure = "healthy"
    return failure, FAILURES[failure]
