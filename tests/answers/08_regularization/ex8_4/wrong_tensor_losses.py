# caught by the visible tests
# wrong: returns the loss tensors themselves, each still attached to its graph, not Python floats
def overfit_one_batch(model, x, y, steps=100, lr=1e-2):
    """Exercise 8.4: train on one batch with Adam; return the per-step losses (before each update)."""
    model.train()
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = nn.CrossEntropyLoss()(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss)
    return losses
