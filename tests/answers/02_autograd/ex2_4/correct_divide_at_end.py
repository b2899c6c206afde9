# correct: unscaled backward per micro-batch, then divides the summed gradients by k; zeroes with zero_()
def accumulate_gradients(model, loss_fn, X, y, k):
    """Exercise 2.4: full-batch gradient of loss_fn(model(X), y) via k micro-batches; returns the loss as a float."""
    for p in model.parameters():
        if p.grad is not None:
            p.grad.zero_()
    m = len(X) // k
    losses = []
    for j in range(k):
        xb, yb = X[j * m:(j + 1) * m], y[j * m:(j + 1) * m]
        loss = loss_fn(model(xb), yb)
        loss.backward()
        losses.append(loss.item())
    with torch.no_grad():
        for p in model.parameters():
            p.grad /= k
    return sum(losses) / k
