# correct: the weights of each loss written out as a matrix, in float64 tensors
def smooth_losses(losses, beta=0.98):
    """Exercise 6.2: bias-corrected exponential moving average of `losses` (a list of floats)."""
    x = torch.tensor([float(v) for v in losses], dtype=torch.float64)
    n = len(x)
    t = torch.arange(n, dtype=torch.float64)
    w = torch.tril(beta ** (t[:, None] - t[None, :])) * (1 - beta)
    return ((w @ x) / (1 - beta ** (t + 1))).tolist()
