# Exercise 3.2
def train_one_epoch(model, loader, optimizer, loss_fn):
    """Exercise 3.2: one epoch of the five steps; return the mean batch loss (a float)."""
    device = next(model.parameters()).device
    model.train()
    total = torch.zeros((), device=device)
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        optimizer.step()
        total += loss.detach()
    return total / len(loader)  # a 0-d tensor, not a Python float
