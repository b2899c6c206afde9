# caught by the visible tests
# wrong: the buggy in-place version, unchanged
def gelu_tanh(x):
    t = torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3))
    t += 1
    t *= 0.5 * x
    return t
