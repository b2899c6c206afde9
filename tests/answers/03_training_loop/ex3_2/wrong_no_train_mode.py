# wrong: zeroes the gradients but never calls model.train(), so a model left in eval mode trains in eval mode
# Exercise 3.2
def train_one_epoch(model, loader, optimizer, loss_fn):
    device = next(model.parameters()).device
    total = 0.0
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / len(loader)
