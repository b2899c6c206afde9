# caught by the visible tests
# wrong: never clears .grad, so each update uses the sum of all past gradients
def fit_linear_regression(X, y, lr, steps):
    w = torch.zeros(X.shape[1], dtype=X.dtype, device=X.device, requires_grad=True)
    b = torch.zeros((), dtype=X.dtype, device=X.device, requires_grad=True)
    losses = []
    for _ in range(steps):
        loss = ((X @ w + b - y) ** 2).mean()
        losses.append(loss.item())
        loss.backward()
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
    return w, b, losses
