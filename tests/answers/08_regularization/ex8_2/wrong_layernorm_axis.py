# caught by the visible tests
# wrong: statistics over the features of each sample (dim 1): that is LayerNorm
def batch_norm(x, running_mean, running_var, weight, bias, training, momentum=0.1, eps=1e-5):
    """Exercise 8.2: BatchNorm1d forward on (N, C); returns (y, new_running_mean, new_running_var)."""
    if training:
        mean, var = x.mean(1, keepdim=True), x.var(1, correction=0, keepdim=True)
        new_mean = (1 - momentum) * running_mean + momentum * x.mean(0)
        new_var = (1 - momentum) * running_var + momentum * x.var(0, correction=1)
        return (x - mean) / torch.sqrt(var + eps) * weight + bias, new_mean, new_var
    return (x - running_mean) / torch.sqrt(running_var + eps) * weight + bias, running_mean, running_var
