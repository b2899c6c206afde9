# wrong: moves x, leaves y on the CPU and uses it as scatter_'s index: meta takes a CPU index, CUDA does not
# Exercise 3.6
def smoothed_train_step(model, x, y, optimizer, eps=0.1):
    """Exercise 3.6: one label-smoothed training step on the model's device; return the detached loss."""
    x = x.to(next(model.parameters()).device)
    optimizer.zero_grad()
    logits = model(x)
    C = logits.shape[1]
    target = torch.full_like(logits, eps / (C - 1)).scatter_(1, y[:, None], 1 - eps)
    loss = -(target * F.log_softmax(logits, dim=1)).sum(dim=1).mean()
    loss.backward()
    optimizer.step()
    return loss.detach()
