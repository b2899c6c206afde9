# caught by the visible tests
# wrong: w = w - lr * w.grad makes w a non-leaf: at the next step w.grad is None
def fit_linear_regression(X, y, lr, steps):
    w = torch.zeros(X.shape[1], dtype=X.dtype, device=X.device, requires_grad=True)
    b = torch.zeros((), dtype=X.dtype, device=X.device, requires_grad=True)
    losses = []
    for _ in range(steps):
        loss = ((X @ w + b - y) ** 2).mean()
        losses.append(loss.item())
        loss.backward()
        w = w - lr * w.grad
        b = b - lr * b.grad
    return w, b, losses
