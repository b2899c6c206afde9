# correct: plain Python with math.isnan, shape-based rules (slope of the last third, train/val gap)
def diagnose(history):
    """Exercise 8.5: name the failure in a training history and its fix, from the FAILURES vocabulary."""
    tr, va, gn = list(history["train_loss"]), list(history["val_loss"]), list(history["grad_norm"])
    def pick(name):
        return name, FAILURES[name]
    if any(math.isnan(v) or math.isinf(v) for v in tr + va):
        return pick("nan_loss")
    if gn[-1] == 0.0 and gn[-2] == 0.0:
        return pick("fp16_no_scaler")
    median = sorted(gn)[len(gn) // 2]
    if max(gn) > 50 * median:
        return pick("exploding_gradients")
    n = len(tr)
    k = n // 3
    first, last = sum(tr[:5]) / 5, sum(tr[-5:]) / 5
    if last > 1.2 * first:
        return pick("lr_too_high")
    if sum(va[-5:]) / 5 - last > 0.5:
        return pick("overfitting")
    def avg(i):
        return sum(tr[i - 1:i + 2]) / 3
    early_drop = avg(1) - avg(k)
    late_drop = avg(n - 1 - k) - avg(n - 2)
    if last > 0.3 * first:
        # still falling as fast as at the start: too low an LR; flattened: the model is too small
        return pick("lr_too_low") if late_drop > 0.5 * early_drop else pick("underfitting")
    return pick("healthy")
