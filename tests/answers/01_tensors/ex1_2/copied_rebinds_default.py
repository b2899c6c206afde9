# copied_default.py with the default's value bound again at the top of the answer cell, so that a test
# that builds its inputs from PATCH_LAYOUT builds them for the default: the hidden tests bind the student's
# own value again before they run, so it still fails
PATCH_LAYOUT = "c p p"
# Exercise 1.2
def patchify(images, p):
    """Non-overlapping p x p patches of images (B, C, H, W), as a tensor of shape (B, (H//p)*(W//p), C*p*p)."""
    layout = PATCH_LAYOUT  # your variant's order inside each patch vector: "c p p" or "p p c"
    B, C, H, W = images.shape
    blocks = images.reshape(B, C, H // p, p, W // p, p)
    return blocks.permute(0, 2, 4, 1, 3, 5).reshape(B, (H // p) * (W // p), C * p * p)
