# caught by the visible tests
# wrong: applies softmax to the logits before CrossEntropyLoss (double softmax)
def overfit_one_batch(model, x, y, steps=100, lr=1e-2):
    """Exercise 8.4: train on one batch with Adam; return the per-step losses (before each update)."""
    model.train()
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = nn.CrossEntropyLoss()(torch.softmax(model(x), dim=1), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses
