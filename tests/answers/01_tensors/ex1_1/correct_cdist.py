# correct: torch.cdist (p = 2 is the Euclidean distance)
# Exercise 1.1
def pairwise_distances(x, y):
    """Euclidean distances between the rows of x (n, d) and y (m, d): a tensor of shape (n, m), dtype of x."""
    return torch.cdist(x, y)
