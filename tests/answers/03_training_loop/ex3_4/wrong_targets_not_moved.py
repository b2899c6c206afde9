# wrong: moves the inputs but not the targets to the model's device (fails on a GPU)
# Exercise 3.4
def train_epoch_mean(model, loader, optimizer, loss_fn):
    device = next(model.parameters()).device
    model.train()
    total_loss = 0.0
    for xb, yb in loader:
        optimizer.zero_grad()
        loss = loss_fn(model(xb.to(device)), yb)
        loss.backward()
        optimizer.step()
        total_loss += loss.item()
    return total_loss / len(loader)
