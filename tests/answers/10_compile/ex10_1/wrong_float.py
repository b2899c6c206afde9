# caught by the visible tests
# wrong: returns the exact ratio, a float, not a whole number of steps
def break_even_steps(warmup_s, eager_step_s, compiled_step_s):
    """Exercise 10.1: the fewest steps after which compiling has paid for its warm-up, or None."""
    if compiled_step_s >= eager_step_s:
        return None
    return warmup_s / (eager_step_s - compiled_step_s)
