# correct: median by sorting (average of the two middle values for an even count), sync before start too
def make_train_step(model, optimizer, loss_fn, compile_kwargs=None):
    """Exercise 10.4: one training step (zero_grad, forward, loss, backward, step), eager or compiled."""
    def step(x, y):
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        return loss.detach()

    return step if compile_kwargs is None else torch.compile(step, **compile_kwargs)


def time_calls(fn, args, n, device):
    """Exercise 10.4: time n calls of fn(*args) one by one; {"times", "first_s", "steady_s"}."""
    cuda = str(torch.device(device)).startswith("cuda")
    times = []
    for _ in range(n):
        if cuda:
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        fn(*args)
        if cuda:
            torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    rest = sorted(times[1:])
    k = len(rest)
    median = rest[k // 2] if k % 2 else (rest[k // 2 - 1] + rest[k // 2]) / 2
    return {"times": times, "first_s": times[0], "steady_s": median}
