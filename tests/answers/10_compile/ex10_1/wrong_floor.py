# caught by the visible tests
# wrong: rounds down, one step before the lines cross
def break_even_steps(warmup_s, eager_step_s, compiled_step_s):
    """Exercise 10.1: the fewest steps after which compiling has paid for its warm-up, or None."""
    if compiled_step_s >= eager_step_s:
        return None
    return int(warmup_s / (eager_step_s - compiled_step_s))
