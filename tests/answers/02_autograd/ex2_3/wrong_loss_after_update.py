# caught by the visible tests
# wrong: records the loss after the update (losses[t] must be the loss before update t)
def fit_linear_regression(X, y, lr, steps):
    w = torch.zeros(X.shape[1], dtype=X.dtype, device=X.device, requires_grad=True)
    b = torch.zeros((), dtype=X.dtype, device=X.device, requires_grad=True)
    losses = []
    for _ in range(steps):
        loss = ((X @ w + b - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
            losses.append(((X @ w + b - y) ** 2).mean().item())
        w.grad = None
        b.grad = None
    return w, b, losses
