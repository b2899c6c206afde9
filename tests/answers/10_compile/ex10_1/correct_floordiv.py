# correct: rounds up with negated floor division, guards with an explicit comparison
def break_even_steps(warmup_s, eager_step_s, compiled_step_s):
    """Exercise 10.1: the fewest steps after which compiling has paid for its warm-up, or None."""
    if not compiled_step_s < eager_step_s:
        return None
    return int(-(-warmup_s // (eager_step_s - compiled_step_s)))
