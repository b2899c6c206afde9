# wrong: |x|^2 + |y|^2 - 2 x.y without a clamp at 0: rounding takes some zero distances below 0, and their square root is nan
# Exercise 1.1
def pairwise_distances(x, y):
    """Euclidean distances between the rows of x (n, d) and y (m, d): a tensor of shape (n, m), dtype of x."""
    sq = (x**2).sum(-1)[:, None] + (y**2).sum(-1)[None, :] - 2 * torch.mm(x, y.t())
    return torch.sqrt(sq)
