def train_guarded(model, optimizer, scheduler, batches, max_norm=1.0, max_skips=3):
    """Exercise 12.4: train, skipping bad batches; stop after max_skips bad batches in a row."""
    losses, skipped, in_a_row = [], [], 0
    for i, (x, y) in enumerate(batches):
        saved = [b.detach().clone() for b in model.buffers()]
        optimizer.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x), y)
        loss.backward()  # a non-finite loss gives non-finite gradients ... not always
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        good = bool(torch.isfinite(norm))
        if not good:
            optimizer.zero_grad(set_to_none=True)
            with torch.no_grad():
                for b, s in zip(model.buffers(), saved):
                    b.copy_(s)
            skipped.append(i)
            in_a_row += 1
            if in_a_row >= max_skips:
                raise FloatingPointError(f"{max_skips} bad batches in a row, the last at batch {i}")
            continue
        optimizer.step()
        scheduler.step()
        losses.append(loss.item())
        in_a_row = 0
    return {"losses": losses, "skipped": skipped}
