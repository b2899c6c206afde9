# correct: torch.compile(**kwargs) used as a decorator factory; NumPy's median; torch.accelerator.synchronize on CUDA
def make_train_step(model, optimizer, loss_fn, compile_kwargs=None):
    """Exercise 10.4: one training step (zero_grad, forward, loss, backward, step), eager or compiled."""
    def step(x, y):
        optimizer.zero_grad()
        out = model(x)
        loss = loss_fn(out, y)
        loss.backward()
        optimizer.step()
        return loss.detach()

    if compile_kwargs is not None:
        step = torch.compile(**compile_kwargs)(step)
    return step


def time_calls(fn, args, n, device):
    """Exercise 10.4: time n calls of fn(*args) one by one; {"times", "first_s", "steady_s"}."""
    cuda = torch.device(device).type == "cuda"
    times = []
    while len(times) < n:
        t0 = time.perf_counter()
        fn(*args)
        if cuda:
            torch.accelerator.synchronize()
        t1 = time.perf_counter()
        times.append(t1 - t0)
    return dict(times=times, first_s=times[0], steady_s=float(np.median(times[1:])))
