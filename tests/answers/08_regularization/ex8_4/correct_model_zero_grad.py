# correct: model.zero_grad() instead of the optimizer's, functional loss, losses kept as float(loss)
def overfit_one_batch(model, x, y, steps=100, lr=1e-2):
    """Exercise 8.4: train on one batch with Adam; return the per-step losses (before each update)."""
    model.train()
    adam = torch.optim.Adam(model.parameters(), lr=lr)
    out = []
    for _ in range(steps):
        model.zero_grad()
        loss = F.cross_entropy(model(x), y)
        out.append(float(loss))
        loss.backward()
        adam.step()
    return out
