# caught by the visible tests
# wrong: one forward and one backward on the whole batch, ignoring k (right gradient, none of the memory saving)
def accumulate_gradients(model, loss_fn, X, y, k):
    model.zero_grad()
    loss = loss_fn(model(X), y)
    loss.backward()
    return loss.item()
