# wrong: returns the mean loss per sample (batch losses weighted by size), not the mean of the batch losses
# Exercise 3.2
def train_one_epoch(model, loader, optimizer, loss_fn):
    """Exercise 3.2: one epoch of the five steps; return the mean batch loss (a float)."""
    device = next(model.parameters()).device
    model.train()
    total, n = 0.0, 0
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)
        loss = loss_fn(model(xb), yb)
        model.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.detach() * len(yb)
        n += len(yb)
    return float(total / n)
