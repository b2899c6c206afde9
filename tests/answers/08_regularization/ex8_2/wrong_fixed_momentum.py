# caught by the visible tests
# wrong: ignores the momentum argument (always 0.1)
def batch_norm(x, running_mean, running_var, weight, bias, training, momentum=0.1, eps=1e-5):
    """Exercise 8.2: BatchNorm1d forward on (N, C); returns (y, new_running_mean, new_running_var)."""
    if training:
        mean, var = x.mean(0), x.var(0, correction=0)
        new_mean = 0.9 * running_mean + 0.1 * mean
        new_var = 0.9 * running_var + 0.1 * x.var(0, correction=1)
    else:
        mean, var, new_mean, new_var = running_mean, running_var, running_mean, running_var
    return (x - mean) / torch.sqrt(var + eps) * weight + bias, new_mean, new_var
