# caught by the visible tests
# wrong: keeps a history of loss tensors (each holds its graph) and averages them at the end
# Exercise 3.4
def train_epoch_mean(model, loader, optimizer, loss_fn):
    """Exercise 3.4: one training epoch; return the mean batch loss as a float, keeping no graph alive."""
    device = next(model.parameters()).device
    model.train()
    losses = []
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        optimizer.step()
        losses.append(loss)
    return torch.stack(losses).mean().item()
