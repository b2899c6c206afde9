# correct: view to split the axes, contiguous() after permute, then view
# Exercise 1.2
def patchify(images, p):
    """Non-overlapping p x p patches of images (B, C, H, W), as a tensor of shape (B, (H//p)*(W//p), C*p*p)."""
    B, C, H, W = images.shape
    nh, nw = H // p, W // p
    x = images.reshape(B, C, nh, p, nw, p).permute(0, 2, 4, 1, 3, 5).contiguous()
    return x.view(B, nh * nw, C * p * p)
