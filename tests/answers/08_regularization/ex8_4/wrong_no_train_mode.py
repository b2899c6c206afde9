# caught by the visible tests
# wrong: leaves the model in whatever mode it arrived in (eval after validation)
def overfit_one_batch(model, x, y, steps=100, lr=1e-2):
    """Exercise 8.4: train on one batch with Adam; return the per-step losses (before each update)."""
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = nn.CrossEntropyLoss()(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses
