# wrong: computes in float64 whatever x's dtype (float32 inputs give float64 outputs; the text says: work in x's dtype)
def batch_norm(x, running_mean, running_var, weight, bias, training, momentum=0.1, eps=1e-5):
    """Exercise 8.2: BatchNorm1d forward on (N, C); returns (y, new_running_mean, new_running_var)."""
    x, running_mean, running_var = x.double(), running_mean.double(), running_var.double()
    weight, bias = weight.double(), bias.double()
    if training:
        mean, var = x.mean(0), x.var(0, correction=0)
        new_mean = (1 - momentum) * running_mean + momentum * mean
        new_var = (1 - momentum) * running_var + momentum * x.var(0, correction=1)
    else:
        mean, var, new_mean, new_var = running_mean, running_var, running_mean, running_var
    return (x - mean) / torch.sqrt(var + eps) * weight + bias, new_mean, new_var
