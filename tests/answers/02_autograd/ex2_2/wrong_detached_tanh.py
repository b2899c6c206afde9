# caught by the visible tests
# wrong: detaches the tanh factor, so its part of the gradient is lost
def gelu_tanh(x):
    t = torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)).detach()
    return 0.5 * x * (1 + t)
