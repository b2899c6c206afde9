# correct: a history of floats, and the loss tensor deleted at the end of each batch
# Exercise 3.4
def train_epoch_mean(model, loader, optimizer, loss_fn):
    """Exercise 3.4: one training epoch; return the mean batch loss as a float, keeping no graph alive."""
    device = next(model.parameters()).device
    model.train()
    history = []
    for xb, yb in loader:
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(model(xb.to(device)), yb.to(device))
        loss.backward()
        optimizer.step()
        history.append(loss.item())
        del loss
    return sum(history) / len(history)
