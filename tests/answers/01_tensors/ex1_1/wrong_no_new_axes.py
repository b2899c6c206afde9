# wrong: x - y without new axes (row i minus row i, or a broadcasting error)
# Exercise 1.1
def pairwise_distances(x, y):
    """Euclidean distances between the rows of x (n, d) and y (m, d): a tensor of shape (n, m), dtype of x."""
    return ((x - y) ** 2).sum(-1).sqrt()
