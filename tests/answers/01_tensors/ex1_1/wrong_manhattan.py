# wrong: L1 (Manhattan) distance instead of the Euclidean distance
# Exercise 1.1
def pairwise_distances(x, y):
    """Euclidean distances between the rows of x (n, d) and y (m, d): a tensor of shape (n, m), dtype of x."""
    return (x[:, None, :] - y[None, :, :]).abs().sum(-1)
