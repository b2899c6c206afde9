import copy


def train_guarded(model, optimizer, scheduler, batches, max_norm=1.0, max_skips=3):
    """Exercise 12.4: train, skipping bad batches; stop after max_skips bad batches in a row."""
    result = {"losses": [], "skipped": []}
    streak = []
    for i, (x, y) in enumerate(batches):
        buffers = copy.deepcopy([b for b in model.buffers()])
        for p in model.parameters():
            p.grad = None
        loss = F.cross_entropy(model(x), y)
        bad = not torch.isfinite(loss).item()
        if not bad:
            loss.backward()
            try:
                torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm, error_if_nonfinite=True)
            except RuntimeError:
                bad = True
        if bad:
            for p in model.parameters():
                p.grad = None
            with torch.no_grad():
                for b, old in zip(model.buffers(), buffers):
                    b.copy_(old)
            result["skipped"].append(i)
            streak.append(i)
            if len(streak) == max_skips:
                raise FloatingPointError(f"{max_skips} bad batches in a row, the last at batch {i}")
        else:
            streak = []
            optimizer.step()
            scheduler.step()
            result["losses"].append(float(loss.detach()))
    return result
