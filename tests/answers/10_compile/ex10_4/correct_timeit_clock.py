# correct: timeit.default_timer is time.perf_counter; the clock is a default argument; a class for the step
import timeit


def make_train_step(model, optimizer, loss_fn, compile_kwargs=None):
    """Exercise 10.4: one training step (zero_grad, forward, loss, backward, step), eager or compiled."""
    class Step:
        def __call__(self, x, y):
            optimizer.zero_grad(set_to_none=True)
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            return loss.detach()

    step = Step().__call__
    return step if compile_kwargs is None else torch.compile(step, **compile_kwargs)


def time_calls(fn, args, n, device, clock=timeit.default_timer):
    """Exercise 10.4: time n calls of fn(*args) one by one; {"times", "first_s", "steady_s"}."""
    times = []
    for _ in range(n):
        start = clock()
        fn(*args)
        if torch.device(device).type == "cuda":
            torch.cuda.synchronize()
        times.append(clock() - start)
    return {"times": times, "first_s": times[0], "steady_s": statistics.median(times[1:])}
