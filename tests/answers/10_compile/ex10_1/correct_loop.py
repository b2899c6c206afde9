# correct: walks the steps until the totals cross (slow for tiny savings, but right)
def break_even_steps(warmup_s, eager_step_s, compiled_step_s):
    """Exercise 10.1: the fewest steps after which compiling has paid for its warm-up, or None."""
    if compiled_step_s >= eager_step_s:
        return None
    n = int(warmup_s / (eager_step_s - compiled_step_s)) - 1  # start just below the crossing
    n = max(n, 0)
    while warmup_s + n * compiled_step_s > n * eager_step_s:
        n += 1
    return n
