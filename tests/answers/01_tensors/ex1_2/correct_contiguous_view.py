# correct: view to split the axes, contiguous() after permute, then view
# Exercise 1.2
def patchify(images, p):
    """Non-overlapping p x p patches of images (B, C, H, W), as a tensor of shape (B, (H//p)*(W//p), C*p*p)."""
    layout = PATCH_LAYOUT  # your variant's order inside each patch vector: "c p p" or "p p c"
    B, C, H, W = images.shape
    nh, nw = H // p, W // p
    x = images.reshape(B, C, nh, p, nw, p)
    x = x.permute(0, 2, 4, 1, 3, 5) if layout == "c p p" else x.permute(0, 2, 4, 3, 5, 1)
    return x.contiguous().view(B, nh * nw, C * p * p)
