# caught by the visible tests
# wrong: int(x) + 1 is ceil only when x is not a whole number (one step late where the lines meet exactly)
def break_even_steps(warmup_s, eager_step_s, compiled_step_s):
    """Exercise 10.1: the fewest steps after which compiling has paid for its warm-up, or None."""
    if compiled_step_s >= eager_step_s:
        return None
    return int(warmup_s / (eager_step_s - compiled_step_s)) + 1
