# wrong: builds the "1 +" as a tensor of ones without device=, so it lives on the CPU whatever x is
def gelu_tanh(x):
    t = torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3))
    return 0.5 * x * (torch.ones(x.shape, dtype=x.dtype) + t)
