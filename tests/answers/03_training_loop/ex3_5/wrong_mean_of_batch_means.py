# caught by the visible tests
# wrong: the mean of the batch means, not the mean per sample (the last, smaller batch weighs too much)
# Exercise 3.5
def evaluate(model, loader, loss_fn):
    """Exercise 3.5: (mean loss per sample, accuracy) in eval mode, no graph; the model left in the mode it was in."""
    device = next(model.parameters()).device
    was_training = model.training
    model.eval()
    losses, correct, n = [], 0, 0
    with torch.no_grad():
        for xb, yb in loader:
            xb, yb = xb.to(device), yb.to(device)
            out = model(xb)
            losses.append(loss_fn(out, yb).item())
            correct += (out.argmax(dim=1) == yb).sum().item()
            n += len(yb)
    model.train(was_training)
    return sum(losses) / len(losses), correct / n
