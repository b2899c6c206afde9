# correct: zero_grad after step, functional loss, float() instead of .item()
def overfit_one_batch(model, x, y, steps=100, lr=1e-2):
    """Exercise 8.4: train on one batch with Adam; return the per-step losses (before each update)."""
    model.train(True)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    history = []
    for step in range(steps):
        loss = F.cross_entropy(model(x), y)
        history.append(float(loss.detach()))
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    return history
