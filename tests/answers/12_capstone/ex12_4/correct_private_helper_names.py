# correct: private module-level helpers named _bad, _good and _setup (the test cell's own values must not replace them)
# Exercise 12.4
import copy


def _bad(t):
    return not bool(torch.isfinite(t).all())


def _setup(model):
    return copy.deepcopy(model.state_dict())


def _good(optimizer, scheduler, losses, loss):
    optimizer.step()
    scheduler.step()
    losses.append(loss.item())


def train_guarded(model, optimizer, scheduler, batches, max_norm=1.0, max_skips=3):
    """Exercise 12.4: train, skipping bad batches; stop after max_skips bad batches in a row."""
    losses, skipped, streak = [], [], 0
    for i, (x, y) in enumerate(batches):
        saved = _setup(model)
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        bad = _bad(loss)
        if not bad:
            loss.backward()
            bad = _bad(torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=max_norm))
        if bad:
            model.load_state_dict(saved)
            optimizer.zero_grad()
            skipped.append(i)
            streak += 1
            if streak == max_skips:
                raise FloatingPointError(f"{max_skips} bad batches in a row, the last at batch {i}")
            continue
        streak = 0
        _good(optimizer, scheduler, losses, loss)
    return {"losses": losses, "skipped": skipped}
