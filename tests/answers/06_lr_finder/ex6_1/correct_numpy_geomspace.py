# correct: numpy.geomspace, whose .tolist() gives Python floats
import numpy as np


def lr_schedule(start, end, num_iter):
    """Exercise 6.1: num_iter learning rates, geometric from start to end (both included)."""
    return np.geomspace(start, end, num=num_iter).tolist()
