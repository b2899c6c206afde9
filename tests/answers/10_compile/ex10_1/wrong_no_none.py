# caught by the visible tests
# wrong: never checks whether compiling is faster (negative answers, or ZeroDivisionError)
import math


def break_even_steps(warmup_s, eager_step_s, compiled_step_s):
    """Exercise 10.1: the fewest steps after which compiling has paid for its warm-up, or None."""
    return math.ceil(warmup_s / (eager_step_s - compiled_step_s))
