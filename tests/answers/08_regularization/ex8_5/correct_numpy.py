# correct: numpy, ratio thresholds in the middle of the gaps given in the table, different order
def diagnose(history):
    """Exercise 8.5: name the failure in a training history and its fix, from the FAILURES vocabulary."""
    import numpy as np
    tr = np.asarray(history["train_loss"], dtype=float)
    va = np.asarray(history["val_loss"], dtype=float)
    gn = np.asarray(history["grad_norm"], dtype=float)
    if not np.isfinite(tr).all():
        failure = "nan_loss"
    elif np.all(gn[len(gn) // 2:] == 0):
        failure = "fp16_no_scaler"
    elif np.max(gn) / np.median(gn) > 20:
        failure = "exploding_gradients"
    else:
        ratio = tr[-4:].mean() / tr[:4].mean()
        if ratio > 1.15:
            failure = "lr_too_high"
        elif ratio < 0.03 and va[-4:].mean() > 2 * va.min():
            failure = "overfitting"
        elif ratio < 0.2:
            failure = "healthy"
        elif ratio < 0.67:
            failure = "underfitting"
        else:
            failure = "lr_too_low"
    return failure, FAILURES[failure]
