# caught by the visible tests
# wrong: records the loss recomputed after the update, not the loss of the step
def overfit_one_batch(model, x, y, steps=100, lr=1e-2):
    """Exercise 8.4: train on one batch with Adam; return the per-step losses (before each update)."""
    model.train()
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        nn.CrossEntropyLoss()(model(x), y).backward()
        opt.step()
        with torch.no_grad():
            losses.append(nn.CrossEntropyLoss()(model(x), y).item())
    return losses
