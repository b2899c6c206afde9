# correct: remembers the previous mode and restores it in a finally block
# Exercise 3.5
def evaluate(model, loader, loss_fn):
    """Exercise 3.5: (mean loss per sample, accuracy) in eval mode, no graph; the model left in the mode it was in."""
    device = next(model.parameters()).device
    was_training = model.training
    model.eval()
    try:
        total_loss, correct, n = 0.0, 0, 0
        with torch.no_grad():
            for xb, yb in loader:
                xb, yb = xb.to(device), yb.to(device)
                out = model(xb)
                total_loss += loss_fn(out, yb).item() * len(yb)
                correct += (out.argmax(dim=1) == yb).sum().item()
                n += len(yb)
        return total_loss / n, correct / n
    finally:
        model.train(was_training)
