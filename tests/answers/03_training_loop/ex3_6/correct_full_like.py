# correct: target from torch.full_like(logits) and scatter_, y moved with .to(logits.device)
# Exercise 3.6
def smoothed_train_step(model, x, y, optimizer, eps=0.1):
    """Exercise 3.6: one label-smoothed training step on the model's device; return the detached loss."""
    x = x.to(next(model.parameters()).device)
    optimizer.zero_grad()
    logits = model(x)
    C = logits.shape[1]
    y = y.to(logits.device)
    target = torch.full_like(logits, eps / (C - 1)).scatter_(1, y[:, None], 1 - eps)
    loss = torch.sum(-target * torch.log_softmax(logits, dim=1), dim=1).mean()
    loss.backward()
    optimizer.step()
    return loss.detach()
