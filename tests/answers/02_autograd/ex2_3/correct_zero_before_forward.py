# correct: zero_() at the top of the loop, loss via F.mse_loss, update with sub_
def fit_linear_regression(X, y, lr, steps):
    """Exercise 2.3: gradient descent on mean squared error from w = 0, b = 0; returns (w, b, losses)."""
    n, d = X.shape
    w = torch.zeros(d, dtype=X.dtype, device=X.device).requires_grad_()
    b = torch.tensor(0.0, dtype=X.dtype, device=X.device).requires_grad_()
    losses = []
    for step in range(steps):
        if w.grad is not None:
            w.grad.zero_()
            b.grad.zero_()
        loss = F.mse_loss(X @ w + b, y)
        losses.append(float(loss))
        loss.backward()
        with torch.no_grad():
            w.sub_(lr * w.grad)
            b.sub_(lr * b.grad)
    return w.detach(), b.detach(), losses
