# caught by the visible tests
# wrong: label_smoothing=eps spreads eps over all C classes, not the targets asked for
# Exercise 3.6
def smoothed_train_step(model, x, y, optimizer, eps=0.1):
    """Exercise 3.6: one label-smoothed training step on the model's device; return the detached loss."""
    device = next(model.parameters()).device
    optimizer.zero_grad()
    logits = model(x.to(device))
    loss = F.cross_entropy(logits, y.to(device), label_smoothing=eps)
    loss.backward()
    optimizer.step()
    return loss.detach()
