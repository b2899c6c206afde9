# caught by the visible tests
# wrong: returns the running loss as a tensor (total += loss keeps every graph alive) instead of a float
def accumulate_gradients(model, loss_fn, X, y, k):
    model.zero_grad()
    total = 0.0
    for xb, yb in zip(X.chunk(k), y.chunk(k)):
        loss = loss_fn(model(xb), yb) / k
        loss.backward()
        total += loss
    return total
