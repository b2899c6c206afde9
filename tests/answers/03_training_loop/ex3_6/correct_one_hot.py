# correct: one_hot with an explicit number of classes, mixed with a uniform off-class target
# Exercise 3.6
def smoothed_train_step(model, x, y, optimizer, eps=0.1):
    """Exercise 3.6: one label-smoothed training step on the model's device; return the detached loss."""
    device = next(model.parameters()).device
    x, y = x.to(device), y.to(device)
    optimizer.zero_grad()
    logits = model(x)
    C = logits.shape[1]
    one_hot = F.one_hot(y, num_classes=C).float()
    target = one_hot * (1 - eps) + (1 - one_hot) * (eps / (C - 1))
    loss = -(target * F.log_softmax(logits, dim=1)).sum(dim=1).mean()
    loss.backward()
    optimizer.step()
    return loss.detach()
