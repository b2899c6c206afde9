# caught by the visible tests
# wrong: creates a new Adam every step, throwing its moment estimates away
def overfit_one_batch(model, x, y, steps=100, lr=1e-2):
    """Exercise 8.4: train on one batch with Adam; return the per-step losses (before each update)."""
    model.train()
    losses = []
    for _ in range(steps):
        opt = torch.optim.Adam(model.parameters(), lr=lr)
        opt.zero_grad()
        loss = nn.CrossEntropyLoss()(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses
