# caught by the visible tests
# wrong: in-place update of a leaf that requires grad, outside torch.no_grad()
def fit_linear_regression(X, y, lr, steps):
    w = torch.zeros(X.shape[1], dtype=X.dtype, device=X.device, requires_grad=True)
    b = torch.zeros((), dtype=X.dtype, device=X.device, requires_grad=True)
    losses = []
    for _ in range(steps):
        loss = ((X @ w + b - y) ** 2).mean()
        losses.append(loss.item())
        loss.backward()
        w -= lr * w.grad
        b -= lr * b.grad
        w.grad = None
        b.grad = None
    return w, b, losses
