# caught by the visible tests
# wrong: wraps the in-place ops in no_grad: the version counter still changes, and they are not recorded
def gelu_tanh(x):
    t = torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3))
    with torch.no_grad():
        t += 1
        t *= 0.5 * x
    return t
