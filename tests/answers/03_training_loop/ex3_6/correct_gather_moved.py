# correct: y moved with .to(x.device) after x, then used as gather's index
# Exercise 3.6
def smoothed_train_step(model, x, y, optimizer, eps=0.1):
    """Exercise 3.6: one label-smoothed training step on the model's device; return the detached loss."""
    x = x.to(next(model.parameters()).device)
    y = y.to(x.device)
    optimizer.zero_grad()
    logp = F.log_softmax(model(x), dim=1)
    C = logp.shape[1]
    picked = logp.gather(1, y[:, None]).squeeze(1)
    off = eps / (C - 1)
    loss = -((1 - eps - off) * picked + off * logp.sum(dim=1)).mean()
    loss.backward()
    optimizer.step()
    return loss.detach()
