# caught by the visible tests
# wrong: steps before backward, so each update uses the previous batch's gradient
# Exercise 3.2
def train_one_epoch(model, loader, optimizer, loss_fn):
    """Exercise 3.2: one epoch of the five steps; return the mean batch loss (a float)."""
    device = next(model.parameters()).device
    model.train()
    total = 0.0
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)
        optimizer.step()
        loss.backward()
        total += loss.item()
    return total / len(loader)
