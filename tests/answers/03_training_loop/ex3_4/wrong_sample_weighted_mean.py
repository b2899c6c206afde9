# wrong: returns the mean loss per sample (batch losses weighted by size), not the mean of the batch losses
# Exercise 3.4
def train_epoch_mean(model, loader, optimizer, loss_fn):
    device = next(model.parameters()).device
    model.train()
    total_loss, n = 0.0, 0
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        optimizer.step()
        total_loss += loss.item() * len(yb)
        n += len(yb)
    return total_loss / n
