# caught by the visible tests
# wrong: clears .grad between backward() and the update, so the update sees zeros
def fit_linear_regression(X, y, lr, steps):
    w = torch.zeros(X.shape[1], dtype=X.dtype, device=X.device, requires_grad=True)
    b = torch.zeros((), dtype=X.dtype, device=X.device, requires_grad=True)
    losses = []
    for _ in range(steps):
        loss = ((X @ w + b - y) ** 2).mean()
        losses.append(loss.item())
        loss.backward()
        w.grad.zero_()
        b.grad.zero_()
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
    return w, b, losses
