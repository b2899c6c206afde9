# caught by the visible tests
# wrong: eval mode but gradients still tracked
# Exercise 3.5
def evaluate(model, loader, loss_fn):
    """Exercise 3.5: (mean loss per sample, accuracy) in eval mode, no graph; the model left in the mode it was in."""
    device = next(model.parameters()).device
    model.eval()
    total_loss, correct, n = 0.0, 0, 0
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)
        out = model(xb)
        total_loss += loss_fn(out, yb).item() * len(yb)
        correct += (out.argmax(dim=1) == yb).sum().item()
        n += len(yb)
    model.train()
    return total_loss / n, correct / n
