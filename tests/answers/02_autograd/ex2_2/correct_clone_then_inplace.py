# correct: keeps the in-place lines but applies them to a clone, so tanh's saved output is untouched
def gelu_tanh(x):
    """Exercise 2.2: tanh-approximate GELU with a working backward (no in-place op on a saved tensor)."""
    t = torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)).clone()
    t += 1
    t *= 0.5 * x
    return t
