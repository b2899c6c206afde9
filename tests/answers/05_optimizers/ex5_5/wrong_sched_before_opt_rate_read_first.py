# wrong: the rate is read before the scheduler moves it, so the returned list looks right, but the
# scheduler is stepped before optimizer.step(): every step uses the next step's rate
def train_one_cycle(model, batches, epochs, max_lr, loss_fn=F.cross_entropy):
    """Exercise 5.5: train_one_cycle_buggy with the scheduler stepped at the right cadence; returns the lrs used."""
    opt = torch.optim.SGD(model.parameters(), lr=max_lr, momentum=0.9)
    sched = OneCycleLR(opt, max_lr=max_lr, total_steps=epochs * len(batches))
    lrs = []
    for epoch in range(epochs):
        for x, y in batches:
            loss = loss_fn(model(x), y)
            opt.zero_grad()
            loss.backward()
            lrs.append(opt.param_groups[0]["lr"])
            sched.step()
            opt.step()
    return lrs
