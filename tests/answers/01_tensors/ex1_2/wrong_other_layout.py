# wrong: patch vectors in the other layout than PATCH_LAYOUT asks: (p, p, C) for "c p p", (C, p, p) for "p p c"
# Exercise 1.2
def patchify(images, p):
    """Non-overlapping p x p patches of images (B, C, H, W), as a tensor of shape (B, (H//p)*(W//p), C*p*p)."""
    layout = PATCH_LAYOUT  # your variant's order inside each patch vector: "c p p" or "p p c"
    B, C, H, W = images.shape
    order = (0, 2, 4, 3, 5, 1) if layout == "c p p" else (0, 2, 4, 1, 3, 5)
    x = images.reshape(B, C, H // p, p, W // p, p).permute(*order)
    return x.reshape(B, (H // p) * (W // p), C * p * p)
