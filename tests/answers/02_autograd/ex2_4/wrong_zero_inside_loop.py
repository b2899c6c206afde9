# caught by the visible tests
# wrong: zero_grad inside the loop, so only the last micro-batch's gradient survives
def accumulate_gradients(model, loss_fn, X, y, k):
    total = 0.0
    for xb, yb in zip(X.chunk(k), y.chunk(k)):
        model.zero_grad()
        loss = loss_fn(model(xb), yb) / k
        loss.backward()
        total += loss.item()
    return total
