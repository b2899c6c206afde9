# caught by the visible tests
# wrong: sums the k losses and calls backward() once, keeping all k graphs in memory at the same time
def accumulate_gradients(model, loss_fn, X, y, k):
    model.zero_grad()
    total = 0
    for xb, yb in zip(X.chunk(k), y.chunk(k)):
        total = total + loss_fn(model(xb), yb) / k
    total.backward()
    return total.item()
