# caught by the visible tests
# wrong: the erf-based GELU, not the tanh approximation the exercise asks for
def gelu_tanh(x):
    return F.gelu(x)
