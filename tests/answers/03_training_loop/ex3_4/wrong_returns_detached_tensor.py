# Exercise 3.4
def train_epoch_mean(model, loader, optimizer, loss_fn):
    """Exercise 3.4: one training epoch; return the mean batch loss as a float, keeping no graph alive."""
    device = next(model.parameters()).device
    model.train()
    total_loss = 0.0
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        optimizer.step()
        total_loss += loss.detach()  # no graph kept, but the sum is a tensor
    return total_loss / len(loader)
