# caught by the visible tests
# wrong: hides the in-place ops from autograd with .data: backward runs, the gradient is wrong
def gelu_tanh(x):
    t = torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3))
    t.data += 1
    t.data *= 0.5 * x.data
    return t
