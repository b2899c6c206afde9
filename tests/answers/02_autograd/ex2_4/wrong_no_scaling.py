# caught by the visible tests
# wrong: no 1/k, the accumulated gradient is k times the full-batch gradient
def accumulate_gradients(model, loss_fn, X, y, k):
    model.zero_grad()
    total = 0.0
    for xb, yb in zip(X.chunk(k), y.chunk(k)):
        loss = loss_fn(model(xb), yb)
        loss.backward()
        total += loss.item() / k
    return total
