# wrong: squared distances (no square root)
# Exercise 1.1
def pairwise_distances(x, y):
    """Euclidean distances between the rows of x (n, d) and y (m, d): a tensor of shape (n, m), dtype of x."""
    return ((x[:, None, :] - y[None, :, :]) ** 2).sum(-1)
