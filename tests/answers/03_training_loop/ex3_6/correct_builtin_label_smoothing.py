# correct: CrossEntropyLoss's label_smoothing, rescaled to eps * C / (C - 1) to give the same targets
# Exercise 3.6
def smoothed_train_step(model, x, y, optimizer, eps=0.1):
    """Exercise 3.6: one label-smoothed training step on the model's device; return the detached loss."""
    device = next(model.parameters()).device
    optimizer.zero_grad()
    logits = model(x.to(device))
    C = logits.shape[1]
    loss = F.cross_entropy(logits, y.to(device), label_smoothing=eps * C / (C - 1))
    loss.backward()
    optimizer.step()
    return loss.detach()
