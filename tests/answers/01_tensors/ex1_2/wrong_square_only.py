# wrong: uses H for both axes, so only square images work
# Exercise 1.2
def patchify(images, p):
    """Non-overlapping p x p patches of images (B, C, H, W), as a tensor of shape (B, (H//p)*(W//p), C*p*p)."""
    B, C, H, W = images.shape
    n = H // p
    x = images.reshape(B, C, n, p, n, p).permute(0, 2, 4, 1, 3, 5)
    return x.reshape(B, n * n, C * p * p)
