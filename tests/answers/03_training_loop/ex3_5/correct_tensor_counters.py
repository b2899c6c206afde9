# correct: counts kept as tensors on the device, summed losses via reduction="sum"-style weighting; floats at the end
# Exercise 3.5
def evaluate(model, loader, loss_fn):
    """Exercise 3.5: (mean loss per sample, accuracy) in eval mode, no graph; the model left in the mode it was in."""
    device = next(model.parameters()).device
    mode = model.training
    model.train(False)
    sums = torch.zeros(2, dtype=torch.float64, device=device)
    count = 0
    try:
        with torch.inference_mode():
            for xb, yb in loader:
                xb, yb = xb.to(device), yb.to(device)
                logits = model(xb)
                sums[0] += loss_fn(logits, yb).double() * yb.shape[0]
                sums[1] += (logits.argmax(1) == yb).sum()
                count += yb.shape[0]
    finally:
        model.train(mode)
    loss_sum, hits = sums.tolist()
    return loss_sum / count, hits / count
