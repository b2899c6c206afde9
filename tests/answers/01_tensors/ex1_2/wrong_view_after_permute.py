# wrong: view after permute raises (non-contiguous)
# Exercise 1.2
def patchify(images, p):
    """Non-overlapping p x p patches of images (B, C, H, W), as a tensor of shape (B, (H//p)*(W//p), C*p*p)."""
    B, C, H, W = images.shape
    x = images.reshape(B, C, H // p, p, W // p, p).permute(0, 2, 4, 1, 3, 5)
    return x.view(B, (H // p) * (W // p), C * p * p)
