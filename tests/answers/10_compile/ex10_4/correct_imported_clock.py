# correct: the clock and the synchronisation imported by name; `is not None` tested the other way round
from time import perf_counter

from torch.cuda import synchronize


def make_train_step(model, optimizer, loss_fn, compile_kwargs=None):
    """Exercise 10.4: one training step (zero_grad, forward, loss, backward, step), eager or compiled."""
    def step(x, y):
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        return loss.detach()

    if compile_kwargs is not None:
        return torch.compile(step, **compile_kwargs)
    return step


def time_calls(fn, args, n, device):
    """Exercise 10.4: time n calls of fn(*args) one by one; {"times", "first_s", "steady_s"}."""
    wait = torch.device(device).type == "cuda"
    times = []
    for _ in range(n):
        t0 = perf_counter()
        fn(*args)
        if wait:
            synchronize()
        t1 = perf_counter()
        times.append(t1 - t0)
    return {"times": times, "first_s": times[0], "steady_s": statistics.median(times[1:])}
