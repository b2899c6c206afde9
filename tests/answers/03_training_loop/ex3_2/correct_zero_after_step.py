# correct: zeroes (with zeros, not None) right after step(); the gradients start clean
# Exercise 3.2
def train_one_epoch(model, loader, optimizer, loss_fn):
    """Exercise 3.2: one epoch of the five steps; return the mean batch loss (a float)."""
    device = next(model.parameters()).device
    model.train()
    losses = []
    for xb, yb in loader:
        out = model(xb.to(device))
        loss = loss_fn(out, yb.to(device))
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=False)
        losses.append(loss.item())
    return sum(losses) / len(losses)
