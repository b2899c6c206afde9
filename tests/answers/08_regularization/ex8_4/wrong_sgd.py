# caught by the visible tests
# wrong: plain SGD instead of the requested Adam
def overfit_one_batch(model, x, y, steps=100, lr=1e-2):
    """Exercise 8.4: train on one batch with Adam; return the per-step losses (before each update)."""
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = nn.CrossEntropyLoss()(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses
