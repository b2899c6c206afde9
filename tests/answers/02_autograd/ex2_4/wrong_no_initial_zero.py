# caught by the visible tests
# wrong: never clears the stale gradients from an earlier step
def accumulate_gradients(model, loss_fn, X, y, k):
    total = 0.0
    for xb, yb in zip(X.chunk(k), y.chunk(k)):
        loss = loss_fn(model(xb), yb) / k
        loss.backward()
        total += loss.item()
    return total
