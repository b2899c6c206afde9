# correct: Tensor.unfold twice (sliding windows with step p), then permute and reshape
# Exercise 1.2
def patchify(images, p):
    """Non-overlapping p x p patches of images (B, C, H, W), as a tensor of shape (B, (H//p)*(W//p), C*p*p)."""
    layout = PATCH_LAYOUT  # your variant's order inside each patch vector: "c p p" or "p p c"
    B, C, H, W = images.shape
    win = images.unfold(2, p, p).unfold(3, p, p)              # (B, C, H/p, W/p, p, p)
    axes = {"c p p": (0, 2, 3, 1, 4, 5), "p p c": (0, 2, 3, 4, 5, 1)}[layout]
    return win.permute(*axes).reshape(B, (H // p) * (W // p), C * p * p)
