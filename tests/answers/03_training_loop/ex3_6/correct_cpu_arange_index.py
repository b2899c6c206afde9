# correct: y moved with torch.as_tensor(..., device=), target made with device=, rows indexed by a CPU
# arange (advanced indexing takes CPU index tensors on CUDA)
# Exercise 3.6
def smoothed_train_step(model, x, y, optimizer, eps=0.1):
    """Exercise 3.6: one label-smoothed training step on the model's device; return the detached loss."""
    device = next(model.parameters()).device
    optimizer.zero_grad()
    logits = model(x.to(device))
    n, C = logits.shape
    target = torch.full((n, C), eps / (C - 1), device=logits.device)
    target[torch.arange(n), torch.as_tensor(y, device=device)] = 1 - eps
    loss = -(target * F.log_softmax(logits, dim=1)).sum(dim=1).mean()
    loss.backward()
    optimizer.step()
    return loss.detach()
