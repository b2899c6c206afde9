# caught by the visible tests
def train_guarded(model, optimizer, scheduler, batches, max_norm=1.0, max_skips=3):
    losses, skipped = [], []
    bad_run = 0
    for i, (x, y) in enumerate(batches):
        backup = {name: buf.detach().clone() for name, buf in model.named_buffers() if 'running' in name}
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        ok = math.isfinite(loss.item())
        if ok:
            loss.backward()
            total = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=max_norm)
            ok = math.isfinite(total.item())
        if ok:
            optimizer.step()
            scheduler.step()
            losses.append(loss.item())
            bad_run = 0
            continue
        for p in model.parameters():
            p.grad = None
        with torch.no_grad():
            for name, buf in model.named_buffers():
                if name in backup:
                    buf.copy_(backup[name])
        skipped.append(i)
        bad_run += 1
        if bad_run == max_skips:
            raise FloatingPointError(f"{max_skips} bad batches in a row, the last at batch {i}")
    return {"losses": losses, "skipped": skipped}
