# correct: clears the gradients at the end of the step; one clock read per call boundary
def make_train_step(model, optimizer, loss_fn, compile_kwargs=None):
    """Exercise 10.4: one training step (zero_grad, forward, loss, backward, step), eager or compiled."""
    def train_step(x, y):
        out = model(x)
        loss = loss_fn(out, y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        return loss.detach()

    if compile_kwargs is not None:
        train_step = torch.compile(train_step, **compile_kwargs)
    return train_step


def time_calls(fn, args, n, device):
    """Exercise 10.4: time n calls of fn(*args) one by one; {"times", "first_s", "steady_s"}."""
    sync = torch.device(device).type == "cuda"
    stamps = [time.perf_counter()]
    for _ in range(n):
        fn(*args)
        if sync:
            torch.cuda.synchronize()
        stamps.append(time.perf_counter())
    times = [b - a for a, b in zip(stamps, stamps[1:])]
    return {"first_s": times[0], "steady_s": statistics.median(times[1:]), "times": times}
