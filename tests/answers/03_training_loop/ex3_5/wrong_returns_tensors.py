# Exercise 3.5
def evaluate(model, loader, loss_fn):
    """Exercise 3.5: (mean loss per sample, accuracy) in eval mode, no graph; the model left in the mode it was in."""
    device = next(model.parameters()).device
    was_training = model.training
    model.eval()
    total_loss, correct, n = 0.0, 0, 0
    with torch.no_grad():
        for xb, yb in loader:
            xb, yb = xb.to(device), yb.to(device)
            out = model(xb)
            total_loss += loss_fn(out, yb) * len(yb)
            correct += (out.argmax(dim=1) == yb).sum()
            n += len(yb)
    model.train(was_training)
    return total_loss / n, correct / n  # two 0-d tensors
