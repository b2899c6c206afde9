# caught by the visible tests
# wrong: divides by the number of samples instead of k (the mean-reduced loss already divides by the micro-batch size)
def accumulate_gradients(model, loss_fn, X, y, k):
    model.zero_grad()
    total = 0.0
    for xb, yb in zip(X.chunk(k), y.chunk(k)):
        loss = loss_fn(model(xb), yb) / len(X)
        loss.backward()
        total += loss.item()
    return total
