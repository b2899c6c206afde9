# caught by the visible tests
# wrong: a loop over rows into torch.empty(n, m, dtype=x.dtype) without device=: the result is on the CPU
# whatever the device of x (on a GPU the rows are copied back without an error)
# Exercise 1.1
def pairwise_distances(x, y):
    """Euclidean distances between the rows of x (n, d) and y (m, d): a tensor of shape (n, m), dtype of x."""
    out = torch.empty(x.shape[0], y.shape[0], dtype=x.dtype)
    for i in range(x.shape[0]):
        out[i] = ((y - x[i]) ** 2).sum(dim=1).sqrt()
    return out
