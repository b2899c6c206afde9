# wrong: the loss is weighted by batch size, but the accuracy is the mean of the per-batch accuracies (the last batch is smaller)
# Exercise 3.5
def evaluate(model, loader, loss_fn):
    """Exercise 3.5: (mean loss per sample, accuracy) in eval mode, no graph; the model left in the mode it was in."""
    device = next(model.parameters()).device
    was_training = model.training
    model.eval()
    total_loss, n, accs = 0.0, 0, []
    with torch.no_grad():
        for xb, yb in loader:
            xb, yb = xb.to(device), yb.to(device)
            out = model(xb)
            total_loss += loss_fn(out, yb).item() * len(yb)
            n += len(yb)
            accs.append((out.argmax(dim=1) == yb).float().mean().item())
    model.train(was_training)
    return total_loss / n, sum(accs) / len(accs)
