# caught by the visible tests
# wrong: compiles the model, not the step: the loss and the optimizer's update stay eager
def make_train_step(model, optimizer, loss_fn, compile_kwargs=None):
    """Exercise 10.4: one training step (zero_grad, forward, loss, backward, step), eager or compiled."""
    if compile_kwargs is not None:
        model = torch.compile(model, **compile_kwargs)

    def step(x, y):
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        return loss.detach()

    return step


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
    return {"times": times, "first_s": times[0], "steady_s": statistics.median(times[1:])}
