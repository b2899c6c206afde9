# correct: the same loop through torch.optim.SGD (identical arithmetic, zero_grad after step)
def fit_linear_regression(X, y, lr, steps):
    """Exercise 2.3: gradient descent on mean squared error from w = 0, b = 0; returns (w, b, losses)."""
    w = torch.zeros(X.shape[1], dtype=X.dtype, device=X.device, requires_grad=True)
    b = torch.zeros((), dtype=X.dtype, device=X.device, requires_grad=True)
    opt = torch.optim.SGD([w, b], lr=lr)
    losses = []
    for _ in range(steps):
        residual = y - (X @ w + b)
        loss = torch.mean(residual * residual)
        loss.backward()
        opt.step()
        opt.zero_grad()
        losses.append(loss.item())
    return w, b, losses
