# wrong: zeroes the gradients but never moves the batches to the model's device (fails on a GPU)
# Exercise 3.2
def train_one_epoch(model, loader, optimizer, loss_fn):
    model.train()
    total = 0.0
    for xb, yb in loader:
        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / len(loader)
