# wrong: centers the inputs in place "for numerical stability", changing the caller's tensors
# Exercise 1.1
def pairwise_distances(x, y):
    """Euclidean distances between the rows of x (n, d) and y (m, d): a tensor of shape (n, m), dtype of x."""
    if x.shape[0] > 0:
        shift = x.mean(0)
        x -= shift
        y = y - shift
    return ((x[:, None, :] - y[None, :, :]) ** 2).sum(-1).sqrt()
