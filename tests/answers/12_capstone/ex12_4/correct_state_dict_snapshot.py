# correct: a deep copy of the whole state_dict before each forward, loaded back on a bad batch; gradients zero-filled
# Exercise 12.4
import copy


def not_finite(t):
    return not bool(torch.isfinite(t).all())


def train_guarded(model, optimizer, scheduler, batches, max_norm=1.0, max_skips=3):
    """Exercise 12.4: train, skipping bad batches; stop after max_skips bad batches in a row."""
    losses, skipped, streak = [], [], 0
    i = -1
    it = iter(batches)
    while True:
        try:
            x, y = next(it)
        except StopIteration:
            break
        i += 1
        snapshot = copy.deepcopy(model.state_dict())
        model.zero_grad()
        loss = F.cross_entropy(model(x), y)
        bad = not_finite(loss)
        if not bad:
            loss.backward()
            bad = not_finite(torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=max_norm))
        if bad:
            model.load_state_dict(snapshot)
            optimizer.zero_grad(set_to_none=False)
            skipped.append(i)
            streak += 1
            if streak == max_skips:
                raise FloatingPointError(f"{max_skips} bad batches in a row, the last at batch {i}")
        else:
            streak = 0
            optimizer.step()
            scheduler.step()
            losses.append(float(loss))
    return {"losses": losses, "skipped": skipped}
