# wrong: "times" is a tensor, first_s and steady_s 0-d tensors, not Python floats
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
    on_cuda = torch.device(device).type == "cuda"
    times = []
    for _ in range(n):
        start = time.perf_counter()
        fn(*args)
        if on_cuda:
            torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
    times = torch.tensor(times, dtype=torch.float64)
    return {"times": times, "first_s": times[0], "steady_s": torch.tensor(statistics.median(times[1:].tolist()))}
