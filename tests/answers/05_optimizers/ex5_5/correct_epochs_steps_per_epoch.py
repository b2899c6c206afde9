# correct: OneCycleLR sized with epochs and steps_per_epoch, lr read from the scheduler, stepped per batch
def train_one_cycle(model, batches, epochs, max_lr, loss_fn=F.cross_entropy):
    """Exercise 5.5: train_one_cycle_buggy with the scheduler stepped at the right cadence; returns the lrs used."""
    opt = torch.optim.SGD(model.parameters(), lr=max_lr, momentum=0.9)
    sched = OneCycleLR(opt, max_lr=max_lr, epochs=epochs, steps_per_epoch=len(batches))
    lrs = []
    for _ in range(epochs):
        for x, y in batches:
            opt.zero_grad(set_to_none=True)
            loss_fn(model(x), y).backward()
            lrs.append(sched.get_last_lr()[0])
            opt.step()
            sched.step()
    return lrs
