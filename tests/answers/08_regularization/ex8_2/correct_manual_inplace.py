# correct: manual sums, Bessel correction by N/(N-1), running buffers updated in place
def batch_norm(x, running_mean, running_var, weight, bias, training, momentum=0.1, eps=1e-5):
    """Exercise 8.2: BatchNorm1d forward on (N, C); returns (y, new_running_mean, new_running_var)."""
    if training:
        n = x.shape[0]
        mu = x.sum(dim=0) / n
        var = ((x - mu) ** 2).sum(dim=0) / n
        running_mean.mul_(1 - momentum).add_(momentum * mu)
        running_var.mul_(1 - momentum).add_(momentum * var * n / (n - 1))
    else:
        mu, var = running_mean, running_var
    x_hat = (x - mu) * torch.rsqrt(var + eps)
    return weight * x_hat + bias, running_mean, running_var
