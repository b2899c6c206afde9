# caught by the visible tests
# wrong: returns loss.item(), a float that forces a device sync, instead of the detached tensor
# Exercise 3.6
def smoothed_train_step(model, x, y, optimizer, eps=0.1):
    """Exercise 3.6: one label-smoothed training step on the model's device; return the detached loss."""
    device = next(model.parameters()).device
    x, y = x.to(device), y.to(device)
    optimizer.zero_grad()
    logits = model(x)
    n, C = logits.shape
    target = torch.full((n, C), eps / (C - 1), device=device)
    target[torch.arange(n, device=device), y] = 1 - eps
    loss = -(target * F.log_softmax(logits, dim=1)).sum(dim=1).mean()
    loss.backward()
    optimizer.step()
    return loss.item()
