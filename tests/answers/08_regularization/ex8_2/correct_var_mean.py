# correct: torch.var_mean for the biased statistics, the unbiased variance by Bessel's factor, rsqrt
def batch_norm(x, running_mean, running_var, weight, bias, training, momentum=0.1, eps=1e-5):
    """Exercise 8.2: BatchNorm1d forward on (N, C); returns (y, new_running_mean, new_running_var)."""
    if not training:
        return (x - running_mean) * torch.rsqrt(running_var + eps) * weight + bias, running_mean, running_var
    var, mean = torch.var_mean(x, dim=0, correction=0)
    n = x.shape[0]
    new_mean = running_mean + momentum * (mean - running_mean)
    new_var = running_var + momentum * (var * n / (n - 1) - running_var)
    return weight * (x - mean) * torch.rsqrt(var + eps) + bias, new_mean, new_var
