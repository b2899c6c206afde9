# correct: PyTorch's own tanh-approximate GELU
def gelu_tanh(x):
    """Exercise 2.2: tanh-approximate GELU with a working backward (no in-place op on a saved tensor)."""
    return F.gelu(x, approximate="tanh")
