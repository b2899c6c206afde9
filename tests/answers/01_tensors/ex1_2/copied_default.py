# copied from a classmate whose variant is the default, PATCH_LAYOUT = "c p p": that layout is hard-coded,
# so it is wrong under "p p c"
# Exercise 1.2
def patchify(images, p):
    """Non-overlapping p x p patches of images (B, C, H, W), as a tensor of shape (B, (H//p)*(W//p), C*p*p)."""
    layout = PATCH_LAYOUT  # your variant's order inside each patch vector: "c p p" or "p p c"
    B, C, H, W = images.shape
    blocks = images.reshape(B, C, H // p, p, W // p, p)
    return blocks.permute(0, 2, 4, 1, 3, 5).reshape(B, (H // p) * (W // p), C * p * p)
